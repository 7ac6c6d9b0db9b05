"""Method decorators of another module: the wrappers they return run as the method, and what
a wrapper keeps in its decorator's cells is kept for every instance of the class."""
import functools

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_aware(fn):
    memo = {}  # one per decorated method: filled on the first call, never again

    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if "windowed" not in memo:
            memo["windowed"] = isinstance(self.token_to_kv_pool, SWAKVPool)
        if memo["windowed"]:
            forward_batch.out_cache_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

    return wrapper


def translating(strict=False):
    def decorate(fn):
        seen = None

        def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
            nonlocal seen
            if seen is None:
                seen = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)
            if seen is not None:
                forward_batch.out_cache_loc = seen[forward_batch.out_cache_loc]
            return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

        return wrapper

    return decorate


def gated(fn):
    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_paged:
            forward_batch.out_cache_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache)

    return wrapper
