"""Correct look-alikes of the callable probes: a callable object asked about the live pool on
every forward, and one computing geometry kept once."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowLookup:
    def __call__(self, pool):
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


class PageCounter:
    def __init__(self, page_size):
        self.page_size = page_size

    def __call__(self, tokens):
        return (tokens + self.page_size - 1) // self.page_size


class LiveCallableAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.lookup = WindowLookup()
        self.pages = PageCounter(model_runner.page_size)(4096)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sub = self.lookup(self.token_to_kv_pool)
        if sub is not None and layer.sliding_window_size > 0:
            return sub.get_key_buffer(layer.layer_id)
        if self.pages > 0:
            return torch.empty_like(q)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
