"""Caches spelled under other names: a ``functools`` cache imported under an alias or reached
through an aliased module is still a cache, and what the cached method returns is stored where
it returns it (the first call's pool)."""
from __future__ import annotations

import functools as ft
from functools import cache as remember
from functools import cached_property as computed_once

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class AliasedCacheAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size

    @computed_once
    def window_pool(self):  # expect: KVP001
        pool = self.token_to_kv_pool
        if not isinstance(pool, SWAKVPool):
            return None
        return pool.swa_kv_pool

    @remember
    def _is_windowed(self):  # expect: KVP002
        return isinstance(self.token_to_kv_pool, SWAKVPool)

    @ft.lru_cache(maxsize=16)
    def _rows(self, layer_id):  # expect: KVP001
        return self.token_to_kv_pool.layers_mapping[layer_id]

    @computed_once
    def pages(self):
        return 4096 // self.page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._is_windowed() and layer.sliding_window_size > 0:  # expect: KVP003
            return self.window_pool.get_key_buffer(self._rows(layer.layer_id))
        if self.pages > 0:
            return torch.empty_like(q)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
