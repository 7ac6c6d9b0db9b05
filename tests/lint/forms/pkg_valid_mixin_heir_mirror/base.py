"""The base: resolves the pool through the allocator and mirrors it."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def resolve_swa_kv_pool(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


class ResolvedBase(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )
