"""Stores the SWA verdict once; another module's mixin of the same backend gates on it."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PoolFlagMixin:
    def _init_pool_flags(self, model_runner):
        self.window_mode = type(model_runner.token_to_kv_pool) is SWAKVPool  # expect: KVP002
