"""Probes and a resolver, exported by ``__all__``."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

__all__ = ["probe_swa", "sub_pools", "resolve_window_pool", "heads_of", "PoolView"]


def probe_swa(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def sub_pools(pool):
    return pool.full_kv_pool, pool.swa_kv_pool


def resolve_window_pool(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


def heads_of(config) -> int:
    return config.num_attention_heads


class PoolView:
    @classmethod
    def translate(cls, pool, loc):
        return pool.translate_loc_from_full_to_swa(loc)
