"""The base of a backend family: the pool the allocator resolves, a kernel kept only where the
model's geometry asks for it, and a translator attribute every branch of a pool test sets."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _chunked_kernel(q, k, v):
    return q


class ResolvedBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        if model_runner.model_config.attention_chunk_size:
            self.chunk_kernel = _chunked_kernel
        if isinstance(model_runner.token_to_kv_pool, SWAKVPool):
            self.translated = None
        else:
            self.translated = None

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None
