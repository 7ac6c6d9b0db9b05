"""Answers the SWA question from the pool the backend holds now, at every read."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LivePoolViewMixin:
    @property
    def window_mode(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)
