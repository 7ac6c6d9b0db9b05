"""Correct look-alikes of the element locals: entries of the live pool's mapping taken per
forward, and entries of a per-layer list of geometry kept once, unpacked and tested alike."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveElementLocalAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        config = model_runner.model_config
        self.layer_windows = [(lid, config.sliding_window) for lid in range(config.num_hidden_layers)]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kinds = getattr(self.token_to_kv_pool, "layers_mapping", None) or {}
        entry = kinds.get(layer.layer_id)
        if entry is not None and entry[1]:
            return q
        return k

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        _, window = self.layer_windows[layer.layer_id]
        assert window is None or window > 0
        return q
