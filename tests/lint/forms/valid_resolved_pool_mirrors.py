"""The look-alike of ``stale_unresolved_pool_mirrors``: the resolver falls back to the pool the
allocator hands out (#27491), so a mirror of the resolved attribute and a gate on it are the fix
itself (a stored mirror is KVP004's, opt-in)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ResolvedMirrorBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.swa_enabled = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )
        self.dense_only = not self._swa_kv_pool
        self.window = model_runner.sliding_window_size

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        if self.swa_enabled and forward_batch.out_cache_loc is not None:
            return forward_batch.out_cache_loc
        return None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc if self.dense_only else None
        if self.window is not None:
            return loc
        return q
