"""Pool state a subclass hands its base's constructor: the base keeps whatever ``__init__`` is
given, so a subclass deriving a sub-pool, a mapping or a verdict from the pool and passing it up
with ``super().__init__(...)`` (by position or keyword) keeps it there; reported at the call
that hands it, gates on it anywhere in the class (the base's methods it runs too) are stale."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class KeepingBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner, window_pool=None, rows=None, use_window=False):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_pool = window_pool
        self.rows = rows
        self.use_window = use_window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_window and layer.sliding_window_size > 0:  # expect: KVP003
            return self.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class HandingUpAttnBackend(KeepingBaseAttnBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        windowed = isinstance(pool, SWAKVPool)
        super().__init__(model_runner, pool.swa_kv_pool if windowed else None, use_window=windowed)  # expect: KVP001,KVP002

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.window_pool is not None:  # expect: KVP003
            loc = loc.clone()
        self.forward_metadata = loc


class HandingRowsAttnBackend(KeepingBaseAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner, rows=getattr(model_runner.token_to_kv_pool, "full_to_swa_index_mapping", None))  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.forward_metadata = self.rows[loc] if self.rows is not None else loc  # expect: KVP003
