"""The pool handed to a helper through a spread dict or a partial; gates inside f-strings and asserts."""
from __future__ import annotations

import functools
from functools import partial

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_pool_of(pool, depth=0):
    return getattr(pool, "swa_kv_pool", None)


def pool_is_windowed(*, pool, strict=False):
    return isinstance(pool, SWAKVPool)


class WindowIndexer:
    def __init__(self, pool, page_size=1):
        self.mapping = pool.full_to_swa_index_mapping
        self.page_size = page_size


class ExtraIndexer:
    """``pool`` is positional-only: a keyword of that name lands in ``**extra``."""

    def __init__(self, pool=None, /, **extra):
        self.fallback = pool
        self.mapping = extra["pool"].full_to_swa_index_mapping


class SpelledArgumentsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.spread_pool = window_pool_of(**{"pool": pool, "depth": 1})  # expect: KVP001
        options = {"pool": model_runner.token_to_kv_pool}
        self.spread_local = window_pool_of(**options)  # expect: KVP001
        self.windowed = pool_is_windowed(**{"pool": pool})  # expect: KVP002
        self.called_partial = functools.partial(window_pool_of, pool=pool)()  # expect: KVP001
        self.positional_partial = partial(pool_is_windowed, strict=True)(pool=pool)  # expect: KVP002
        self.indexer = WindowIndexer(**{"pool": pool, "page_size": 4})  # expect: KVP001
        self.page_size = window_pool_of(**{"pool": None, "depth": 2}) or 1
        self.extra_indexer = ExtraIndexer(None, pool=pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        assert self.windowed or layer.sliding_window_size < 0, "windowed layer on a full pool"  # expect: KVP003
        forward_batch.tag = f"{'swa' if self.positional_partial else 'full'}-{layer.layer_id}"  # expect: KVP003
        return q
