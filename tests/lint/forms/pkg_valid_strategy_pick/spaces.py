"""Stateless strategy objects, one per index space, and the factory that picks one for a pool."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class IndexSpace:
    @classmethod
    def pick(cls, pool):
        if not isinstance(pool, SWAKVPool):
            return FlatSpace()
        return WindowSpace()

    def locs(self, pool, loc):
        return loc


class FlatSpace(IndexSpace):
    pass


class WindowSpace(IndexSpace):
    def locs(self, pool, loc):
        return pool.translate_loc_from_full_to_swa(loc)


def space_for(pool):
    return WindowSpace() if isinstance(pool, SWAKVPool) else FlatSpace()
