"""Correct look-alikes of a helper given the pool allocator: a resolver that asks it only when
the active pool is not an SWA pool, and the allocator's pool asked again in per-forward code
(by the helper, or by a closure kept in the constructor that asks when it is called)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def kv_of(alloc):
    return alloc.get_kvcache()


def resolve_window(active, alloc):
    if isinstance(active, SWAKVPool):
        return active
    cache = alloc.get_kvcache()
    return cache if isinstance(cache, SWAKVPool) else None


class AllocatorResolverAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.allocator = model_runner.token_to_kv_pool_allocator
        self._swa_kv_pool = resolve_window(model_runner.token_to_kv_pool, self.allocator)
        self.current = lambda: kv_of(self.allocator)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        cache = kv_of(self.allocator)
        if isinstance(cache, SWAKVPool):
            return q
        return v if isinstance(self.current(), SWAKVPool) else k
