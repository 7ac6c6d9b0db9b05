"""An attribute named by a constant of the class (``setattr(self, self.MAP_ATTR, ...)``,
``getattr(self, type(self).FLAG)``, ``cls.NAME``) is that attribute: what is kept under it and
what decides on it are the same state as if it were spelled out."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class NamedByConstantAttnBackend(AttentionBackend):
    MAP_ATTR = "_loc_table"
    FLAG = "_pool_is_windowed"
    PAGE_ATTR = "_pages"

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        setattr(self, self.MAP_ATTR, pool.full_to_swa_index_mapping)  # expect: KVP001
        setattr(self, type(self).FLAG, isinstance(pool, SWAKVPool))  # expect: KVP002
        setattr(self, NamedByConstantAttnBackend.PAGE_ATTR, model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        table = getattr(self, self.MAP_ATTR)
        pages = getattr(self, self.PAGE_ATTR)
        if getattr(self, type(self).FLAG, False):  # expect: KVP003
            return table[forward_batch.out_cache_loc], pages
        return forward_batch.out_cache_loc, pages


class NamedByConstantLiveAttnBackend(AttentionBackend):
    FLAG = "_pool_is_windowed"
    PAGE_ATTR = "_pages"

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        setattr(self, self.PAGE_ATTR, model_runner.page_size)

    @property
    def _pool_is_windowed(self):
        return isinstance(self.token_to_kv_pool, SWAKVPool)

    def init_forward_metadata(self, forward_batch):
        if getattr(self, self.FLAG):
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc, getattr(self, self.PAGE_ATTR)
