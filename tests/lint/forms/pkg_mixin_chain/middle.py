"""Backends inheriting the mixins of state.py (a second module of the chain)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .state import CopiedFlagsMixin, ResolvedViewMixin


class CopyingBaseAttnBackend(CopiedFlagsMixin, AttentionBackend):
    def __init__(self, model_runner):
        self._take_flags(model_runner)
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002


class ResolvedBaseAttnBackend(ResolvedViewMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve(model_runner)

    @staticmethod
    def _resolve(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if hasattr(pool, "full_to_swa_index_mapping") else None
