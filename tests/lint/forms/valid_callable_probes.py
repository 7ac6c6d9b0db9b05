"""Look-alikes of a probed translator: the translator read off the live pool per forward, the
translator of the pool the allocator resolves, and attributes every decision sets (their
presence decides nothing) or that hold geometry."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _chunked_kernel(q, k, v):
    return q


class LiveProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        chunk = model_runner.model_config.attention_chunk_size
        self.chunk_kernel = _chunked_kernel if chunk else None
        if chunk:
            self.marker = "chunked"
        else:
            self.marker = "plain"

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        translate = getattr(self.token_to_kv_pool, "translate_loc_from_full_to_swa", None)
        if callable(translate):
            forward_batch.swa_loc = translate(forward_batch.out_cache_loc)
        if self._swa_kv_pool is not None and callable(
                self._swa_kv_pool.translate_loc_from_full_to_swa):
            forward_batch.swa_loc = forward_batch.out_cache_loc
        if callable(self.chunk_kernel) and hasattr(self, "marker"):
            return self.chunk_kernel(q, k, v)
        return None


class EitherWayAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        if model_runner.model_config.attention_chunk_size:
            self.translate = None
        else:
            self.translate = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if hasattr(self, "translate"):
            pool = self.token_to_kv_pool
            if isinstance(pool, SWAKVPool):
                return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return None
