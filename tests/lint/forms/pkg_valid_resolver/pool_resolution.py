"""The one place that decides which SWA pool a backend translates against."""
from __future__ import annotations

from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def resolve_window_pool(model_runner) -> Optional[SWAKVPool]:
    active = model_runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


def page_count(context_len: int, page_size: int) -> int:
    return (context_len + page_size - 1) // page_size
