"""#27491's resolution inline through locals (``resolved = backing if ... else None``, with
``backing`` the allocator's pool), and a backend borrowing another class's resolver through
that class (``Backend._resolve_swa_kv_pool(runner)``): resolved pools, their mirrors and gates
on them are the fix itself."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LocalsResolvedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            resolved = active
        elif model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            resolved = None
        else:
            backing = model_runner.token_to_kv_pool_allocator.get_kvcache()
            resolved = backing if isinstance(backing, SWAKVPool) else None
        self._swa_kv_pool = resolved
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:
            return k
        return q


class BorrowingBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = LocalsResolvedBackend._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:
            return k
        return q
