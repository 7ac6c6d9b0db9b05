"""Pool tests shared by the package's backends."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def is_swa(pool) -> bool:
    return isinstance(pool, SWAKVPool)
