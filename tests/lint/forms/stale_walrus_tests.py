"""Kept pool state tested through an assignment expression: the walrus binds the kept value
and the test decides on it as if the attribute were tested directly."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WalrusTestedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.window_half = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.index_map = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001
        self.halves = {"window": self.window_half}  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if (table := self.index_map) is not None:  # expect: KVP003
            forward_batch.window_loc = table[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        while (half := self.window_half) is None:  # expect: KVP003
            return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if not (translate := self.index_map):  # expect: KVP003
            return half.get_key_buffer(layer.layer_id)
        return translate, q
