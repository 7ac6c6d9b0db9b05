"""Correct look-alikes of the inspected backends: a helper object's methods asked about the
live pool on every forward, or asked only about geometry once, keep nothing the swap changes;
an inspector holding configuration of its own is no pool state."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PoolInspector:
    def __init__(self, page_size=1):
        self.page_size = page_size

    def is_windowed(self, pool):
        return isinstance(pool, SWAKVPool)

    def pages(self, tokens):
        return (tokens + self.page_size - 1) // self.page_size

    def head_dim(self, pool):
        return pool.head_dim


INSPECTOR = PoolInspector(page_size=16)


class LiveInspectedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.inspector = PoolInspector(model_runner.page_size)
        self.max_pages = self.inspector.pages(4096)
        self.head_dim = INSPECTOR.head_dim(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if self.inspector.is_windowed(pool) and layer.sliding_window_size > 0:
            return pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        if self.max_pages > self.head_dim:
            return torch.empty_like(q)
        return pool.get_key_buffer(layer.layer_id)
