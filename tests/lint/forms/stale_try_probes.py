"""A ``try`` around an SWA-only attribute of the pool is a duck test of its type: what the
body and the handlers store outside per-forward code is decided by the pool of that moment."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ProbedPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        try:
            self.token_to_kv_pool.swa_layer_nums
            self.windowed = True  # expect: KVP002
        except AttributeError:
            self.windowed = False  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        if self.windowed:  # expect: KVP003
            forward_batch.rows = None


class ProbedLocalAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.mode = "full"
        pool = model_runner.token_to_kv_pool
        try:
            _ = pool.swa_attention_layer_ids
        except (AttributeError, KeyError):
            pass
        else:
            self.mode = "swa"  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.mode == "swa":  # expect: KVP003
            return q
        return k
