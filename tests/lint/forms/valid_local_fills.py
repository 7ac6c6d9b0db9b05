"""Correct look-alikes of the local fills: a local container of geometry kept, one of pool
state used only while it is built, and one of pool state refilled on every forward."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LocalGeometryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        windows = []
        for layer_id in range(model_runner.start_layer, model_runner.end_layer):
            windows.append(model_runner.model_config.get_sliding_window(layer_id))
        self.windows = windows
        checked = []
        for layer_id in range(model_runner.start_layer, model_runner.end_layer):
            checked.append(model_runner.token_to_kv_pool.get_key_buffer(layer_id))
        assert all(buf.is_contiguous() for buf in checked)
        self.forward_metadata = None

    def init_forward_metadata(self, forward_batch):
        rows = []
        for layer_id in range(len(self.windows)):
            rows.append(self.token_to_kv_pool.get_key_buffer(layer_id))
        self.forward_metadata = rows

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return torch.empty_like(q), self.forward_metadata[layer.layer_id], self.windows
