from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import PagedBase


def resolve_window(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool.swa_kv_pool
    backing = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return backing.swa_kv_pool if isinstance(backing, SWAKVPool) else None


class SpreadGeometryBackend(PagedBase):
    def __init__(self, model_runner):
        super().__init__(model_runner, **self._kwargs(model_runner))

    @staticmethod
    def _kwargs(model_runner):
        pool = model_runner.token_to_kv_pool
        return {"page_size": pool.page_size, "head_dim": pool.head_dim}


class SpreadResolvedBackend(PagedBase):
    def __init__(self, model_runner):
        kwargs = dict(page_size=model_runner.page_size, window_kv=resolve_window(model_runner))
        super().__init__(model_runner, **kwargs)
