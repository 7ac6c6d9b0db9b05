"""A descriptor instance set on the class at construction time (``type(self).x = Fixed(v)``,
``self.__class__.x = ...``, ``Cls.x = ...``) answers every later read of ``self.x`` with what
its ``__get__`` returns: the value it was built with, here the pool state of that moment."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Fixed:
    def __init__(self, held):
        self.held = held

    def __get__(self, obj, owner=None):
        return self.held


class FromPool:
    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        return getattr(obj.token_to_kv_pool, self.name, None) if obj is not None else self


class ClassPinnedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.__class__.loc_table = Fixed(getattr(pool, "full_to_swa_index_mapping", None))  # expect: KVP001
        ClassPinnedAttnBackend.split = Fixed(isinstance(pool, SWAKVPool))  # expect: KVP002
        type(self).page = Fixed(model_runner.page_size)
        type(self).window_sub = FromPool("swa_kv_pool")

    def init_forward_metadata(self, forward_batch):
        table = self.loc_table if self.loc_table is not None else None  # expect: KVP003
        if self.split:  # expect: KVP003
            return table, self.page
        sub = self.window_sub
        return sub if sub is not None else forward_batch.out_cache_loc
