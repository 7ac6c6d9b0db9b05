"""Record types and their factories, apart from the backend that keeps what they build."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass(frozen=True)
class SWALayout:
    is_swa: bool
    swa_pool: Optional[object] = None

    @classmethod
    def from_pool(cls, pool):
        if isinstance(pool, SWAKVPool):
            return cls(True, pool.swa_kv_pool)
        return cls(False, None)

    @classmethod
    def from_config(cls, model_runner):
        return cls(model_runner.sliding_window_size > 0, None)


class Translation(NamedTuple):
    mapping: Optional[object]
    window: int

    @staticmethod
    def of(pool, window):
        return Translation(getattr(pool, "full_to_swa_index_mapping", None), window)
