"""An inner backend that writes to whichever pool it is handed."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SubPoolBackend(AttentionBackend):
    def __init__(self, model_runner, *, target_pool, translate=None):
        super().__init__()
        self.target_pool = target_pool
        self.translate = translate
        self.page_size = model_runner.page_size

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.translate is not None:
            loc = self.translate(loc)
        return torch.ops.demo.extend(q, self.target_pool.get_key_buffer(layer.layer_id), loc)
