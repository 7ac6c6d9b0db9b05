"""Correct look-alikes: resolvers that ask the allocator only when the active pool is not SWA
(the pool handed in as an argument, the fallback in a ternary's branch), a property over the
pool they resolve, and the allocator's pool read per forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def pick_window_pool(pool, allocator):
    if isinstance(pool, SWAKVPool):
        return pool
    fallback = allocator.get_kvcache()
    return fallback if isinstance(fallback, SWAKVPool) else None


def window_pool_or_shared(runner):
    active = runner.token_to_kv_pool
    return active if isinstance(active, SWAKVPool) else runner.token_to_kv_pool_allocator.get_kvcache()


class FallbackResolverAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.allocator = model_runner.token_to_kv_pool_allocator
        self._swa_kv_pool = pick_window_pool(model_runner.token_to_kv_pool, self.allocator)
        self.window_source = window_pool_or_shared(model_runner)

    @property
    def windowed(self) -> bool:
        return self._swa_kv_pool is not None

    def init_forward_metadata(self, forward_batch):
        if self.windowed:
            forward_batch.loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        cache = self.allocator.get_kvcache()
        if getattr(cache, "full_to_swa_index_mapping", None) is not None:
            return cache.full_to_swa_index_mapping[forward_batch.out_cache_loc]
        return None
