"""Helpers over the pool allocator: one hands its pool back whatever the active pool is (no
resolver), one asks it only when the active pool is not an SWA pool (a resolver)."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def allocator_cache(allocator):
    return allocator.get_kvcache()


def resolved_window(active, allocator):
    if isinstance(active, SWAKVPool):
        return active
    fallback = allocator.get_kvcache()
    return fallback if isinstance(fallback, SWAKVPool) else None
