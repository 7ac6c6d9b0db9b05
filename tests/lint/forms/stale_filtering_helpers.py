"""A module helper that keeps only what a pool type test lets through: its answer is the
pool's verdict, kept when __init__ keeps it and decided on in a forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def windowed_layer_ids(pool, num_layers):
    return tuple(i for i in range(num_layers) if isinstance(pool, SWAKVPool))


def mapped_layer_ids(pool):
    table = getattr(pool, "layers_mapping", None) or {}
    return {lid for lid, (_, windowed) in table.items() if windowed}


class FilteredLayersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        n = model_runner.model_config.num_hidden_layers
        self.windowed_ids = windowed_layer_ids(model_runner.token_to_kv_pool, n)  # expect: KVP001
        self.mapped_ids = mapped_layer_ids(self.token_to_kv_pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id in self.windowed_ids:  # expect: KVP003
            return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        if layer.layer_id in self.mapped_ids:  # expect: KVP003
            return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
