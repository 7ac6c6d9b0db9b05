"""Correct look-alikes of the filtering helpers: the same helpers asked about the live pool in
every forward, in a membership test and through a local."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def windowed_layer_ids(pool, num_layers):
    return tuple(i for i in range(num_layers) if isinstance(pool, SWAKVPool))


def mapped_layer_ids(pool):
    table = getattr(pool, "layers_mapping", None) or {}
    return {lid for lid, (_, windowed) in table.items() if windowed}


class LiveFilteredLayersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id in windowed_layer_ids(self.token_to_kv_pool, self.num_layers):
            return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        mapped = mapped_layer_ids(self.token_to_kv_pool)
        if mapped and layer.layer_id in mapped:
            return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
