"""Correct look-alikes of installed backend code: wrappers keeping geometry or counters,
descriptors answering per read or caching by pool, functions installed later that read the
pool they are given each forward."""
from __future__ import annotations

import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def counted(init):
    @functools.wraps(init)
    def wrapper(self, model_runner):
        init(self, model_runner)
        self.calls = 0
        self.heads = model_runner.token_to_kv_pool.head_num
    return wrapper


class LiveWindow:
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj.token_to_kv_pool, "swa_kv_pool", None)


class PerPool:
    def __init__(self):
        self.seen = {}

    def __get__(self, obj, owner=None):
        pool = obj.token_to_kv_pool
        self.seen[id(pool)] = isinstance(pool, SWAKVPool)
        return self.seen[id(pool)]


def _metadata(self, forward_batch):
    pool = self.token_to_kv_pool
    if isinstance(pool, SWAKVPool) and self.window is not None:
        forward_batch.swa_loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)


class InstalledLookalikeAttnBackend(AttentionBackend):
    window = LiveWindow()
    swa_now = PerPool()

    @counted
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.swa_now and self.heads > 1:
            return q
        return k


InstalledLookalikeAttnBackend.init_forward_metadata = _metadata
MadeLookalikeAttnBackend = type("MadeLookalikeAttnBackend", (AttentionBackend,),
                                {"init_forward_metadata": _metadata})
