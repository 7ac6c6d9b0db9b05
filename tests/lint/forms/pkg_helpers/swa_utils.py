"""Pool helpers: ``resolve_swa_kv_pool`` consults the allocator, ``pick_swa_pool`` does not."""
from __future__ import annotations

from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def pick_swa_pool(runner) -> Optional[SWAKVPool]:
    pool = runner.token_to_kv_pool
    return pool if isinstance(pool, SWAKVPool) else None


def swa_sub_pools(pool):
    return pool.full_kv_pool, pool.swa_kv_pool


def resolve_swa_kv_pool(runner) -> Optional[SWAKVPool]:
    active = runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    if runner.is_draft_worker and not runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    kvcache = runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


def window_of(runner) -> int:
    return runner.sliding_window_size or -1
