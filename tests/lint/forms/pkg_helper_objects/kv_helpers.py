"""Helpers over the pool, defined apart from the backend that builds them."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class IndicesUpdater:
    def __init__(self, pool, backend):
        self.kv_pool = pool
        self.backend = backend

    def update(self, loc):
        return self.kv_pool.translate_loc_from_full_to_swa(loc)


class WindowProbe:
    def __init__(self, pool):
        self.uses_window_pool = type(pool).__name__ == "SWAKVPool"
        self.page_size = pool.page_size


class PoolGeometry:
    def __init__(self, pool):
        self.head_dim = pool.head_dim
        self.layer_num = pool.layer_num


class LiveUpdater:
    def __init__(self, backend):
        self.backend = backend

    def update(self, loc):
        pool = self.backend.token_to_kv_pool
        return pool.translate_loc_from_full_to_swa(loc) if isinstance(pool, SWAKVPool) else loc
