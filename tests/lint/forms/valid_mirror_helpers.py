"""A flag that mirrors the pool the class resolved through the allocator, read through a
helper that returns a verdict built from it (as aiter_backend's _use_fused_fp8_kv_write reads
use_sliding_window_kv_pool = self.swa_kv_pool is not None and ...): the swap installs that
very pool, so the verdict is right, as a gate on the mirror itself is."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class MirrorVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.windowed = self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        cache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return cache if isinstance(cache, SWAKVPool) else None

    def _fused_write(self, layer):
        return self.kv_cache_dtype == "fp8" and not self.windowed

    def _window_for(self, layer):
        return layer.sliding_window_size if self.windowed else -1

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._fused_write(layer):
            q = q + 1
        if self._window_for(layer) > 0 and self.windowed:
            q = q + 2
        return q
