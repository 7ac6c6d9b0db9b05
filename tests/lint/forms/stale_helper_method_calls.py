"""Pool state returned by a method of a helper object the pool is handed to: the helper holds
nothing of the pool, but what its method derives from the pool argument is derived, whichever
object of its class is asked (made there, a local, a module-level instance, one kept on self;
an instance method, a classmethod or a staticmethod)."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PoolInspector:
    def __init__(self, strict=False):
        self.strict = strict

    def is_windowed(self, pool):
        return isinstance(pool, SWAKVPool) or (not self.strict and hasattr(pool, "swa_kv_pool"))

    def rows(self, pool, layer_id):
        return pool.layers_mapping[layer_id] if isinstance(pool, SWAKVPool) else None

    @classmethod
    def window_pool(cls, pool):
        return getattr(pool, "swa_kv_pool", None)

    @staticmethod
    def mapping(pool):
        return pool.full_to_swa_index_mapping


INSPECTOR = PoolInspector(strict=True)


class InspectedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.inspector = PoolInspector()
        self.windowed = self.inspector.is_windowed(self.token_to_kv_pool)  # expect: KVP002
        self.first_rows = PoolInspector().rows(model_runner.token_to_kv_pool, 0)  # expect: KVP001
        probe = PoolInspector(strict=True)
        self.window_pool = probe.window_pool(self.token_to_kv_pool)  # expect: KVP001
        self.mapping = INSPECTOR.mapping(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.forward_metadata = self.mapping[loc] if self.windowed else loc  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool is not None and layer.sliding_window_size > 0:  # expect: KVP003
            return self.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
