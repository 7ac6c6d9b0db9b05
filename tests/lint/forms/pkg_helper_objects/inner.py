"""An inner backend of another module."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PlainInnerBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
