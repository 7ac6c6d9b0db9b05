"""A helper given the pool allocator that hands back its pool whatever the active pool is
(``def kv_of(alloc): return alloc.get_kvcache()``) asks it outside any resolver: a resolver asks
the allocator only as a fallback, after the active pool's answer. What such a helper returns
in the constructor is the pool of that moment, kept like any other, however the allocator
reaches it (the runner's attribute, a local, a keyword, ``self``'s copy of it, a local
function)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def kv_of(alloc):
    return alloc.get_kvcache()


def window_of(allocator, *, strict=False):
    cache = allocator.get_kvcache()
    if strict and not isinstance(cache, SWAKVPool):
        raise TypeError("an SWA pool is needed")
    return cache if isinstance(cache, SWAKVPool) else None


class AllocatorHelperAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self.target_pool = kv_of(model_runner.token_to_kv_pool_allocator)  # expect: KVP001
        alloc = model_runner.token_to_kv_pool_allocator
        self.window_pool = window_of(alloc, strict=False)  # expect: KVP001
        self.own_view = kv_of(self.token_to_kv_pool_allocator)  # expect: KVP001
        self.alloc = model_runner.token_to_kv_pool_allocator
        self.asked = self.alloc.get_kvcache()  # expect: KVP001
        ask = lambda handle: handle.get_kvcache()  # noqa: E731
        self.via_local = ask(self.alloc)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool is not None:  # expect: KVP003
            return q
        return k
