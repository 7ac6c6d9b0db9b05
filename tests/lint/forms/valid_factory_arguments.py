"""Correct look-alikes of the factory-built backends: a factory handing ``__init__`` the pool
itself (the swap point), geometry and the runner keeps nothing the swap changes; the pool's
state is read from ``self.token_to_kv_pool`` per forward."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class FactoryLiveAttnBackend(AttentionBackend):
    def __init__(self, kv_pool, page_size, window=0, model_runner=None):
        super().__init__()
        self.token_to_kv_pool = kv_pool
        self.page_size = page_size
        self.window = window
        self.model_runner = model_runner

    @classmethod
    def for_runner(cls, model_runner):
        return cls(model_runner.token_to_kv_pool, model_runner.page_size,
                   window=model_runner.sliding_window_size or 0, model_runner=model_runner)

    @staticmethod
    def for_draft(model_runner):
        return FactoryLiveAttnBackend(model_runner.token_to_kv_pool, model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool) and self.window > 0:
            return pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        return torch.empty_like(q)
