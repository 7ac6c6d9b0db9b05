"""A pool class found by a loop of type tests: where ``isinstance(pool, cls)`` passed, ``cls`` is
the pool's class (what ``type(pool)`` is), and what the loop bound beside it was picked by it;
kept, it names the pool the backend was built with, not the one a FROZEN_KV swap installs."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_POOL_KINDS = {"swa": SWAKVPool, "base_swa": BaseSWAKVPool}


class NarrowedClassAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.pool_cls = None
        self.layout = "full"
        for pool_cls in (SWAKVPool, BaseSWAKVPool):
            if isinstance(pool, pool_cls):
                self.pool_cls = pool_cls  # expect: KVP001
                break
        for kind, cls in _POOL_KINDS.items():
            if pool is not None and issubclass(type(pool), cls):
                self.layout = kind  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        if self.pool_cls is SWAKVPool:  # expect: KVP003
            forward_batch.swa = True
        self.forward_metadata = 1 if self.layout == "swa" else 0  # expect: KVP003
