"""Pool probes with no ``__all__``: every public name is star-exported."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def swa_enabled(pool) -> bool:
    return type(pool) is SWAKVPool


def index_map_of(pool):
    return getattr(pool, "full_to_swa_index_mapping", None)


def layer_count(config) -> int:
    return config.num_hidden_layers


class KVProbe:
    @staticmethod
    def halves(pool):
        return pool.full_kv_pool, pool.swa_kv_pool
