"""Mixins of where SWA state lives: a live view of the resolved pool, and runner flags copied."""
from __future__ import annotations

from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ResolvedViewMixin:
    _swa_kv_pool: Optional[SWAKVPool] = None

    @property
    def windowed(self) -> bool:
        return self._swa_kv_pool is not None


class CopiedFlagsMixin:
    def _take_flags(self, model_runner) -> None:
        self.hybrid = model_runner.is_hybrid_swa  # expect: KVP002
