"""Correct look-alikes of layer state data: what is read off a buffer or a layer's state object
and kept is its dtype, its shape or its device; the state itself is asked for per forward."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LayerStateGeometryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        states = pool.get_attention_compress_states(0)
        self.score_dtype = states.kv_score_buffer.kv_score.dtype
        self.score_rows = states.kv_score_buffer.kv_score.shape[0]
        self.key_device = pool.get_key_buffer(0).device

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        states = self.token_to_kv_pool.get_attention_compress_states(layer.layer_id)
        scores = states.kv_score_buffer.kv_score
        return torch.empty_like(q, dtype=self.score_dtype), scores[: self.score_rows]
