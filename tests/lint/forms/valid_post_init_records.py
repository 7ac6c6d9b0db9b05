"""Correct look-alikes of records with a ``__post_init__``: built from the pool of each forward,
from geometry only, or from the resolved pool; a record of the pool that derives nothing."""
from __future__ import annotations

from dataclasses import InitVar, dataclass, field

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class _LiveFacts:
    pool: InitVar[object]
    windowed: bool = field(init=False)

    def __post_init__(self, pool):
        self.windowed = isinstance(pool, SWAKVPool)


@dataclass(frozen=True)
class _Geometry:
    window: int
    heads: int
    paged: bool = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "paged", self.window > 0 and self.heads > 1)


class PostInitRecordLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.geom = _Geometry(model_runner.sliding_window_size or 0, 8)
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.resolved = _LiveFacts(self._swa_kv_pool)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        facts = _LiveFacts(self.token_to_kv_pool)
        if facts.windowed and self.geom.paged:
            forward_batch.swa = True
        self.forward_metadata = facts
