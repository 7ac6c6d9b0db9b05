"""Pool state handed to ``__init__`` by the class's own factory: a classmethod or staticmethod
that derives a sub-pool, a mapping or a verdict from the runner's pool and builds the backend
with it (``cls(...)`` or the class's name; by keyword, by position, through ``**kwargs``) makes
``__init__``'s parameters that state, and ``__init__`` keeps them."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class FactoryBuiltAttnBackend(AttentionBackend):
    def __init__(self, kv_pool, page_size, sub_pool=None, rows=None, *, windowed=False):
        super().__init__()
        self.token_to_kv_pool = kv_pool
        self.page_size = page_size
        self.sub_pool = sub_pool  # expect: KVP001
        self.rows = rows  # expect: KVP001
        self.windowed = windowed  # expect: KVP002

    @classmethod
    def for_runner(cls, model_runner):
        pool = model_runner.token_to_kv_pool
        options = {"rows": getattr(pool, "full_to_swa_index_mapping", None)}
        return cls(pool, model_runner.page_size, **options)

    @classmethod
    def for_draft(cls, model_runner):
        pool = model_runner.token_to_kv_pool
        sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        return cls(pool, model_runner.page_size, sub)

    @staticmethod
    def for_target(model_runner):
        pool = model_runner.token_to_kv_pool
        return FactoryBuiltAttnBackend(pool, model_runner.page_size, windowed=isinstance(pool, SWAKVPool))

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.windowed:  # expect: KVP003
            loc = self.rows[loc]
        self.forward_metadata = loc // self.page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.sub_pool is not None and layer.sliding_window_size > 0:  # expect: KVP003
            return self.sub_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
