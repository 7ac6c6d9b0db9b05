"""Look-alikes: cells keyed by the live pool, cells of geometry, and decisions made per call."""
import functools

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_aware(fn):
    memo = {}  # keyed by the pool object itself: a swapped-in pool is a miss, tested anew

    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if id(pool) not in memo:
            memo[id(pool)] = (pool, isinstance(pool, SWAKVPool))
        if memo[id(pool)][1]:
            forward_batch.out_cache_loc = pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

    return wrapper


def paged(fn):
    calls = [0]  # a counter and a page size: geometry and bookkeeping only

    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        calls[0] += 1
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            forward_batch.out_cache_loc = pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

    return wrapper


def gated(fn):
    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_kv_pool is not None:
            forward_batch.out_cache_loc = self._swa_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

    return wrapper
