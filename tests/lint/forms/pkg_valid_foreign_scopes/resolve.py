"""The #27491 resolver: the active pool when SWA, none for a plain draft, else the allocator's."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def swa_pool_for(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    cache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return cache if isinstance(cache, SWAKVPool) else None
