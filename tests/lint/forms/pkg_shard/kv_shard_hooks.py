"""Pool detection shared by the backends of this package (like upstream's kv_shard_hooks)."""
from __future__ import annotations

from typing import Optional

from sglang.srt.mem_cache.page_interleave_pool import PageInterleaveKVPoolMixin
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def get_kv_shard_pool(token_to_kv_pool) -> Optional[PageInterleaveKVPoolMixin]:
    """Return the page-interleaved pool, if logical-page sharding is active."""
    return token_to_kv_pool if isinstance(token_to_kv_pool, PageInterleaveKVPoolMixin) else None


def is_window_pool(token_to_kv_pool) -> bool:
    return isinstance(token_to_kv_pool, SWAKVPool) and token_to_kv_pool.swa_layer_nums > 0


def window_translate_of(token_to_kv_pool):
    return getattr(token_to_kv_pool, "translate_loc_from_full_to_swa", None)


def shard_page_count(page_size: int, context_len: int) -> int:
    return (context_len + page_size - 1) // page_size
