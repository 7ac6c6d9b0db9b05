from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def is_windowed(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def window_pool_or_none(pool) -> Optional[SWAKVPool]:
    return pool if isinstance(pool, SWAKVPool) else None
