from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

__all__ = ["window_pool", "pool_is_windowed", "pages_needed"]


def window_pool(pool):
    return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


def pool_is_windowed(pool):
    return isinstance(pool, SWAKVPool)


def pages_needed(tokens, page_size):
    return (tokens + page_size - 1) // page_size
