from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def is_windowed(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def window_pool_or_none(pool) -> Optional[SWAKVPool]:
    return pool if isinstance(pool, SWAKVPool) else None


def is_latent(pool) -> bool:
    return type(pool).__name__ == "MLATokenToKVPool"


KV_PROBES = {"window": is_windowed, "latent": is_latent}  # a registry of pool tests, by kind
