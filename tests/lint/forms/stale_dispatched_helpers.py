"""Pool state through ``functools.singledispatch``: the dispatch on the pool's type is a type test
of the pool, and what the variant registered for an SWA pool returns is derived from it
(registered by annotation or by ``register(cls)``, as functions or as methods)."""
from __future__ import annotations

from functools import singledispatch, singledispatchmethod
import functools

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.memory_pool import KVCache
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@singledispatch
def window_rows(pool) -> "torch.Tensor | None":
    return None


@window_rows.register(SWAKVPool)
def _window_rows_swa(pool):
    return pool.full_to_swa_index_mapping


@functools.singledispatch
def pool_label(pool: KVCache) -> str:
    return "full"


@pool_label.register
def _label_swa(pool: SWAKVPool) -> str:
    return "windowed"


class DispatchedLookupAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.rows = window_rows(self.token_to_kv_pool)  # expect: KVP001
        self.label = pool_label(model_runner.token_to_kv_pool)  # expect: KVP002
        self.sub = self._sub_of(self.token_to_kv_pool)  # expect: KVP001
        self.heads = model_runner.model_config.num_attention_heads

    @singledispatchmethod
    def _sub_of(self, pool):
        return None

    @_sub_of.register(SWAKVPool)
    def _(self, pool):
        return pool.swa_kv_pool

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.forward_metadata = self.rows[loc] if self.rows is not None else loc  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.label == "windowed":  # expect: KVP003
            return self.sub.get_key_buffer(layer.layer_id)
        return torch.empty_like(q)
