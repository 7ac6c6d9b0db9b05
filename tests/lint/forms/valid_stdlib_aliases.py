"""Aliased standard-library helpers over what a swap does not change, or read per forward."""
from __future__ import annotations

from functools import partial as bind
from operator import attrgetter as reader

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

live_pool = reader("token_to_kv_pool")


class LiveAliasedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = reader("sliding_window_size")(model_runner)
        self.scale = bind(max, 1.0)
        self.heads, self.window_left = reader("num_heads", "window_left")(model_runner.model_config)

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = live_pool(self)
        to_swa = bind(SWAKVPool.translate_loc_from_full_to_swa, pool)
        if isinstance(pool, SWAKVPool):
            return to_swa(forward_batch.out_cache_loc), self.scale(q)
        return forward_batch.out_cache_loc, self.window
