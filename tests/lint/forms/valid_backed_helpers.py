"""Correct look-alikes of the backed helpers: a helper holding the backend that built it
reads ``self.backend.token_to_kv_pool`` when it is asked (and may leave what it derived for
the call on itself, redone on every call), keeps only geometry of it, or rebuilds its memo
whenever the pool it was made for is not the current one."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveWindowReader:
    def __init__(self, backend):
        self.backend = backend
        self.page_size = self.backend.token_to_kv_pool.page_size

    def window_pool(self):
        pool = self.backend.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


class PoolCheckedMemo:
    def __init__(self, attn_backend):
        self.attn_backend = attn_backend
        self._made_for = None
        self._mapping = None

    def mapping(self):
        pool = self.attn_backend.token_to_kv_pool
        if self._made_for is not pool:
            self._made_for = pool
            self._mapping = pool.full_to_swa_index_mapping
        return self._mapping


class PerCallLocations:
    def __init__(self, attn_backend):
        self.attn_backend = attn_backend
        self.swa_loc = None

    def prepare(self, out_cache_loc):
        pool = self.attn_backend.token_to_kv_pool
        self.swa_loc = pool.translate_loc_from_full_to_swa(out_cache_loc)
        return self.swa_loc


class LiveBackedHelpersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.reader = LiveWindowReader(self)
        self.memo = PoolCheckedMemo(self)
        self.locations = PerCallLocations(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = self.reader.window_pool()
        if window is not None and layer.sliding_window_size > 0:
            k = window.get_key_buffer(layer.layer_id)
        loc = self.memo.mapping()[forward_batch.out_cache_loc]
        self.locations.prepare(forward_batch.out_cache_loc)
        return torch.empty_like(q), k, loc, self.reader.page_size
