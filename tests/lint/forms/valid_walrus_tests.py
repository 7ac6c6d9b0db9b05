"""Correct look-alikes of the walrus tests: the live pool's half and mapping bound and tested in
each forward, and geometry kept once, tested through a walrus."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveWalrusAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size

    def init_forward_metadata(self, forward_batch):
        if (table := getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)) is not None:
            forward_batch.window_loc = table[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if (half := getattr(self.token_to_kv_pool, "swa_kv_pool", None)) is not None:
            if (window := self.window) is not None and window > 0:
                return half.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
