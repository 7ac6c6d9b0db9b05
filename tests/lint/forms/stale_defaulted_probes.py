"""``getattr(pool, "<SWA-only name>", default)`` is a duck test of the pool's type: the pool's
answer, or the default when the pool is not an SWA pool. A verdict or a count kept from it in
``__init__`` describes the pool the backend was built with, not the one a FROZEN_KV swap hands in."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class DefaultedProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_size = getattr(model_runner, "sliding_window_size", None)
        self.has_window_layers = getattr(self.token_to_kv_pool, "swa_layer_nums", 0) > 0  # expect: KVP002
        pool = model_runner.token_to_kv_pool
        self.windowed_layers = getattr(pool, "swa_layer_nums", None)  # expect: KVP002
        self.heads = getattr(pool, "head_num", 1)
        self.dtype = getattr(pool, "dtype", None)
        self.window_heads = getattr(pool, "swa_head_num", None)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        if self.has_window_layers:  # expect: KVP003
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        swa = self.windowed_layers is not None and layer.sliding_window_size > 0  # expect: KVP003
        return q, swa, self.heads


class DefaultedProbePerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_size = getattr(self.token_to_kv_pool, "sliding_window_size", None)

    def init_forward_metadata(self, forward_batch):
        if getattr(self.token_to_kv_pool, "swa_layer_nums", 0) > 0:
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
