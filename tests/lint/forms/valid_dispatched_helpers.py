"""Correct look-alikes of the dispatched helpers: a singledispatch helper called with the live
pool on every forward, and one dispatching on a layer or a config (no pool tested) whose result
is kept."""
from __future__ import annotations

import functools

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@functools.singledispatch
def window_rows(pool):
    return None


@window_rows.register(SWAKVPool)
def _(pool):
    return pool.full_to_swa_index_mapping


@functools.singledispatch
def heads_of(config) -> int:
    return config.num_attention_heads


@heads_of.register(dict)
def _(config) -> int:
    return config["num_attention_heads"]


class LiveDispatchAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.heads = heads_of(model_runner.model_config)

    def init_forward_metadata(self, forward_batch):
        rows = window_rows(self.token_to_kv_pool)
        loc = forward_batch.out_cache_loc
        self.forward_metadata = rows[loc] if rows is not None else loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.heads > 8:
            return torch.empty_like(q)
        return q
