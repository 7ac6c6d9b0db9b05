"""Correct look-alikes of the handed-up state: a subclass handing its base's constructor the
runner, geometry or nothing derived keeps nothing the swap changes; the base reads the pool's
state per forward."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner, window=0, heads=1):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = window
        self.heads = heads

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool) and self.window > 0:
            return pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        return pool.get_key_buffer(layer.layer_id)


class GeometryHandingAttnBackend(LiveBaseAttnBackend):
    def __init__(self, model_runner):
        config = model_runner.model_config
        super().__init__(model_runner, window=model_runner.sliding_window_size or 0,
                         heads=config.num_attention_heads)

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = forward_batch.out_cache_loc if self.heads else None
