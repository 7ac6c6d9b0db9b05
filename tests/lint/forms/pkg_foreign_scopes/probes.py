"""The active pool under the resolver's name: no allocator asked."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_pool_now(model_runner):
    pool = model_runner.token_to_kv_pool
    return pool if issubclass(type(pool), SWAKVPool) else None
