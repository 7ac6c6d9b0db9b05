"""Correct look-alikes: memos whose validity is checked against the pool read on every use.

A cache keyed by the pool object (or its ``id()``) gives each pool the swap hands in its own
entry; a memo refilled whenever the pool it was made for is not the current one is rebuilt
before it is used. Both are live, however they are spelled.
"""
from __future__ import annotations

import functools
import weakref
from functools import lru_cache

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PoolKeyedCacheAttnBackend(AttentionBackend):
    """functools caches whose key is the pool they are called with."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @staticmethod
    @functools.lru_cache(maxsize=8)
    def _mapping_of(pool):
        return getattr(pool, "full_to_swa_index_mapping", None)

    @functools.cache
    def _translator_for(self, pool):
        return pool.translate_loc_from_full_to_swa if isinstance(pool, SWAKVPool) else None

    @classmethod
    @lru_cache(maxsize=None)
    def _is_swa(cls, pool):
        return isinstance(pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self._mapping_of(self.token_to_kv_pool) is not None:
            loc = self._mapping_of(self.token_to_kv_pool)[loc]
        translate = self._translator_for(self.token_to_kv_pool)
        if translate is not None:
            loc = translate(loc)
        pool = self.token_to_kv_pool
        if self._is_swa(pool) and layer.sliding_window_size > -1:
            return torch.empty_like(q), loc
        return q, loc


class IdentityMemoAttnBackend(AttentionBackend):
    """Memos refilled whenever the pool object they were made for is not the current one."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._for = None
        self._translate = None
        self._seen = None
        self._mapping = None
        self._kind_for = None
        self._is_swa = False
        self._id = None
        self._table = None

    def _translator(self):
        pool = self.token_to_kv_pool
        if self._for is not pool:
            self._for = pool
            self._translate = pool.translate_loc_from_full_to_swa
        return self._translate

    def _mapping_now(self):
        pool = self.token_to_kv_pool
        if pool is self._seen:
            return self._mapping
        self._seen = pool
        self._mapping = getattr(pool, "full_to_swa_index_mapping", None)
        return self._mapping

    def _swa_now(self):
        if self._kind_for == self.token_to_kv_pool:
            pass
        else:
            self._kind_for = self.token_to_kv_pool
            self._is_swa = isinstance(self.token_to_kv_pool, SWAKVPool)
        return self._is_swa

    def _table_now(self):
        key = id(self.token_to_kv_pool)
        if key != self._id:
            self._id = key
            self._table = self.token_to_kv_pool.full_to_swa_index_mapping
        return self._table

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self._swa_now() and layer.sliding_window_size > -1:
            loc = self._translator()(loc)
        if self._mapping_now() is not None:
            loc = self._table_now()[loc]
        return torch.empty_like(q), loc


class DictMemoAttnBackend(AttentionBackend):
    """Dicts and weak dicts keyed by the pool object or its id(): one entry per pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._by_pool = weakref.WeakKeyDictionary()
        self._by_id = {}
        self._flags = {}

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if pool not in self._by_pool:
            self._by_pool[pool] = pool.translate_loc_from_full_to_swa
        forward_batch.swa_loc = self._by_pool[pool](forward_batch.out_cache_loc)
        key = id(pool)
        mapping = self._by_id.get(key)
        if mapping is None:
            mapping = self._by_id[key] = pool.full_to_swa_index_mapping
        if self._flags.get(id(self.token_to_kv_pool)) is None:
            self._flags[id(self.token_to_kv_pool)] = isinstance(pool, SWAKVPool)
        if self._flags[id(self.token_to_kv_pool)]:
            forward_batch.swa_loc = mapping[forward_batch.swa_loc]


class RebuiltMemoAttnBackend(AttentionBackend):
    """Memo attributes rebuilt from the current pool in the same method before they are used."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_sub = None

    def _window_buffer(self, layer_id):
        pool = self.token_to_kv_pool
        self._swa_sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        if self._swa_sub is not None:
            return self._swa_sub.get_key_buffer(layer_id)
        return pool.get_key_buffer(layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return torch.empty_like(q), self._window_buffer(layer.layer_id)


class ForwardScopedMemoAttnBackend(AttentionBackend):
    """Memos emptied at the start of every forward: what a layer fills lives one forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._per_layer = {}
        self._to_swa = None
        self._for_layer = None
        self._sub = None

    def init_forward_metadata(self, forward_batch):
        self._per_layer.clear()
        self._to_swa = None
        self._for_layer = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id not in self._per_layer:
            self._per_layer[layer.layer_id] = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self._to_swa is None:
            self._to_swa = self.token_to_kv_pool.translate_loc_from_full_to_swa
        if self._for_layer is not layer:
            self._for_layer = layer
            self._sub = getattr(self.token_to_kv_pool, "swa_kv_pool", None)
        return torch.empty_like(q), self._per_layer[layer.layer_id], self._to_swa, self._sub


class ValueTestAttnBackend(AttentionBackend):
    """An attribute compared with a value is not a memo: what the block sets is made per forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size
        self.mode = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if self.window == layer.sliding_window_size and isinstance(pool, SWAKVPool):
            self.swa_table = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        if forward_batch.forward_mode != self.mode:
            self.swa_sub = getattr(pool, "swa_kv_pool", None)
        return torch.empty_like(q)


class WalrusAndDefaultMemoAttnBackend(AttentionBackend):
    """The same memos in other spellings: a walrus key, id() inline, setdefault keyed by the pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._wfor = None
        self._wsub = None
        self._by_pool = {}

    def _sub(self):
        if (pool := self.token_to_kv_pool) is not self._wfor:
            self._wfor = pool
            self._wsub = getattr(pool, "swa_kv_pool", None)
        return self._wsub

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if id(self.token_to_kv_pool) != getattr(self, "_pool_id", None):
            self._pool_id = id(self.token_to_kv_pool)
            self._map = self.token_to_kv_pool.full_to_swa_index_mapping
        pool = self.token_to_kv_pool
        to_swa = self._by_pool.setdefault(id(pool), pool.translate_loc_from_full_to_swa)
        self._by_pool.setdefault(pool, pool.swa_kv_pool)
        return to_swa(q), self._sub(), self._map
