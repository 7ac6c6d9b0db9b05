"""Tests spelled as calls or hidden in a block: ``operator.not_(x)`` is ``not x``,
``operator.is_not(x, None)`` is ``x is not None``, ``operator.contains(kept, name)`` is ``name in
kept``; and a read of an SWA-only name off the pool under ``contextlib.suppress`` either leaves
the block or gives the pool's value, a duck test as ``getattr(pool, name, default)`` is."""
from __future__ import annotations

import contextlib
import operator
from operator import not_

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SpelledTestsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.flat = operator.not_(isinstance(pool, SWAKVPool))  # expect: KVP002
        self.windowed = not_(hasattr(pool, "swa_kv_pool"))  # expect: KVP002
        self.table = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001
        self.fields = frozenset(vars(pool))  # expect: KVP001
        self.swa_layers = 0
        with contextlib.suppress(AttributeError):
            self.swa_layers = pool.swa_layer_nums  # expect: KVP002
        self.translated = False
        with contextlib.suppress(Exception):
            self.translated = pool.translate_loc_from_full_to_swa is not None  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        if self.flat:  # expect: KVP003
            return
        if operator.is_not(self.table, None):  # expect: KVP003
            forward_batch.loc = self.table[forward_batch.out_cache_loc]
        while operator.contains(self.fields, "swa_kv_pool"):  # expect: KVP003
            break

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.swa_layers and layer.sliding_window_size > 0:  # expect: KVP003
            return q
        return k if self.translated else v  # expect: KVP003
