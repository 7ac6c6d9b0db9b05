"""State kept on an object the module holds (a ``threading.local``, a ``SimpleNamespace``, a
``ContextVar`` set once, any object the module binds by assignment) outlives the constructor as a
``self`` attribute does: the draft backend's verdict or sub-pool stays there after a FROZEN_KV
swap, and whatever reads it back later decides on the pool the backend was built with."""
from __future__ import annotations

import contextvars
import threading
import types

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_PER_THREAD = threading.local()
_SHARED = types.SimpleNamespace(sub_pool=None, layers=0)
_LOC_TABLE = contextvars.ContextVar("loc_table", default=None)


class ModuleKeptAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        _PER_THREAD.pool_is_windowed = hasattr(pool, "swa_kv_pool")  # expect: KVP002
        _SHARED.sub_pool = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        _SHARED.layers = model_runner.model_config.num_hidden_layers
        _LOC_TABLE.set(getattr(pool, "full_to_swa_index_mapping", None))  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        table = _LOC_TABLE.get()
        if table is None:  # expect: KVP003
            return forward_batch.out_cache_loc
        return table[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = _SHARED.sub_pool if getattr(_PER_THREAD, "pool_is_windowed", False) else self.token_to_kv_pool  # expect: KVP003
        return q, pool, _SHARED.layers > 0


class ModuleRefreshedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        _SHARED.layers = model_runner.model_config.num_hidden_layers

    def init_forward_metadata(self, forward_batch):
        _LOC_TABLE.set(getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None))
        table = _LOC_TABLE.get()
        if table is None:
            return forward_batch.out_cache_loc
        return table[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        _PER_THREAD.pool_is_windowed = isinstance(self.token_to_kv_pool, SWAKVPool)
        if _PER_THREAD.pool_is_windowed and layer.sliding_window_size > 0:
            return q, self.token_to_kv_pool.swa_kv_pool
        return q, _SHARED.layers
