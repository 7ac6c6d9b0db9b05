from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import PagedBase


class SpreadMethodBackend(PagedBase):
    def __init__(self, model_runner):
        super().__init__(model_runner, **self._kwargs(model_runner))  # expect: KVP001

    @staticmethod
    def _kwargs(model_runner):
        pool = model_runner.token_to_kv_pool
        return {"page_size": pool.page_size, "window_kv": getattr(pool, "swa_kv_pool", None)}


class SpreadDictCallBackend(PagedBase):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        kwargs = dict(page_size=pool.page_size,
                      window_kv=pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None)
        super().__init__(model_runner, **kwargs)  # expect: KVP001


class KeywordBackend(PagedBase):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        super().__init__(model_runner, window_kv=getattr(pool, "swa_kv_pool", None))  # expect: KVP001
