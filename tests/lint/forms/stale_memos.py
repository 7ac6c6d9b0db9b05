"""Stale twins of the live memos: caches keyed by something the pool swap does not change
(the backend itself, a layer id, a flag), filled once and read after the swap."""
from __future__ import annotations

import functools
from functools import cached_property

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LayerKeyedCacheAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @functools.lru_cache(maxsize=None)
    def _swa_buffer(self, layer_id):  # expect: KVP001
        pool = self.token_to_kv_pool
        return pool.swa_kv_pool.get_key_buffer(layer_id) if isinstance(pool, SWAKVPool) else None

    @functools.cache
    def _mapping(self):  # expect: KVP001
        return getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)

    @cached_property
    def _window_pool(self):  # expect: KVP001
        pool = self.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    @property
    def _live_window_pool(self):
        pool = self.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self._swa_buffer(layer.layer_id) is not None:  # expect: KVP003
            k = self._swa_buffer(layer.layer_id)
        if self._mapping() is not None:  # expect: KVP003
            loc = self._mapping()[loc]
        if self._window_pool is not None:  # expect: KVP003
            v = self._window_pool.get_value_buffer(layer.layer_id)
        if self._live_window_pool is not None:
            v = self._live_window_pool.get_value_buffer(layer.layer_id)
        return torch.empty_like(q), k, v, loc


class KeyedByOtherAttnBackend(AttentionBackend):
    """Memos checked against a key, but not against the pool: the swap leaves them as they are."""

    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._maps = {}
        self._for_layer = None
        self._translate = None
        self._for_pool = None
        self._sub = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id not in self._maps:
            self._maps[layer.layer_id] = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        if self._for_layer is not layer:
            self._for_layer = layer
            self._translate = self.token_to_kv_pool.translate_loc_from_full_to_swa  # expect: KVP001
        runner_pool = self.model_runner.token_to_kv_pool  # expect: KVP001
        if runner_pool is not self._for_pool:
            self._for_pool = runner_pool  # expect: KVP001
            self._sub = runner_pool.swa_kv_pool  # expect: KVP001
        loc = self._maps[layer.layer_id][forward_batch.out_cache_loc]
        return torch.empty_like(q), self._translate(loc), self._sub


class ClassAttrCacheAttnBackend(AttentionBackend):
    """Class attributes are shared by every instance: the target's and the draft's backends."""

    window_pool = None
    shared_map = None

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.bind(model_runner.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        if type(self).window_pool is None:
            type(self).window_pool = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        if self.__class__.shared_map is None:
            self.__class__.shared_map = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        if ClassAttrCacheAttnBackend.shared_map is None:
            ClassAttrCacheAttnBackend.shared_map = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        forward_batch.swa_loc = type(self).shared_map[forward_batch.out_cache_loc]

    @classmethod
    def bind(cls, pool):
        if cls.window_pool is None:
            cls.window_pool = pool.swa_kv_pool  # expect: KVP001


class SometimesResetAttnBackend(AttentionBackend):
    """Emptied only on some forwards (or only in __init__): an extend after the swap reads it."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._per_layer = {}
        self._to_swa = None

    def init_forward_metadata(self, forward_batch):
        if forward_batch.forward_mode.is_decode():
            self._per_layer.clear()

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id not in self._per_layer:
            self._per_layer[layer.layer_id] = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        if self._to_swa is None:
            self._to_swa = self.token_to_kv_pool.translate_loc_from_full_to_swa  # expect: KVP001
        return torch.empty_like(q), self._per_layer[layer.layer_id], self._to_swa


class HalfMemoAttnBackend(AttentionBackend):
    """Checked against a pool kept from __init__ it never records again (the decision on that kept
    pool is the finding), and a memo keyed by the forward mode."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._built_for = model_runner.token_to_kv_pool  # expect: KVP001
        self._sub = None
        self._mode = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if pool is not self._built_for:  # expect: KVP003
            self._sub = pool.swa_kv_pool
        if forward_batch.forward_mode != self._mode:
            self._mode = forward_batch.forward_mode
            self._to_swa = pool.translate_loc_from_full_to_swa  # expect: KVP001
        return torch.empty_like(q), self._sub, self._to_swa


class SetDefaultByLayerAttnBackend(AttentionBackend):
    """setdefault keyed by a layer id: the first pool's entry answers after the swap."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._maps = {}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        self._maps.setdefault(layer.layer_id, pool.full_to_swa_index_mapping)  # expect: KVP001
        sub = self._maps.setdefault(-layer.layer_id, pool.swa_kv_pool)  # expect: KVP001
        return torch.empty_like(q), sub
