"""An inner backend that reads geometry off the pool it is handed and the pool per batch."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class GeometryOnlyBackend(AttentionBackend):
    def __init__(self, model_runner, *, target_pool):
        super().__init__()
        self.page_size = target_pool.page_size
        self.dtype = target_pool.dtype
        self.model_runner = model_runner

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        return torch.ops.demo.extend(q, pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
