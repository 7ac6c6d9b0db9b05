from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def is_windowed(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def window_of(model_runner) -> Optional[int]:
    return getattr(model_runner, "sliding_window_size", None)


def resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
    active = model_runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return pool if isinstance(pool, SWAKVPool) else None


def is_latent(pool) -> bool:
    return type(pool).__name__ == "MLATokenToKVPool"


KV_PROBES = {"window": is_windowed, "latent": is_latent}
