"""Stores that outlive the call other than ``self.x``: nested objects, classes, modules, caches."""
from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Dict, List

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.flashattention_backend import FlashAttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_SWA_POOL = None
_POOLS_BY_BACKEND: Dict[int, object] = {}
_TRANSLATE_HOOKS: List = []


class NestedStoreAttnBackend(FlashAttentionBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__(model_runner, skip_prefill)
        self.meta = SimpleNamespace(window=model_runner.sliding_window_size)
        self.meta.swa_pool = model_runner.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        self.meta.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.graph_state = {}
        self.graph_state["mapping"] = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001


class ClassAttributeAttnBackend(AttentionBackend):
    shared_swa_pool = None
    swa_detected = False

    def __init__(self, model_runner):
        super().__init__()
        type(self).shared_swa_pool = model_runner.token_to_kv_pool  # expect: KVP001
        ClassAttributeAttnBackend.swa_detected = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self._register(model_runner)

    @classmethod
    def _register(cls, model_runner):
        cls.window_mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.swa_detected and layer.sliding_window_size > 0:  # expect: KVP003
            return self._swa_extend(q, k, v, layer, forward_batch)
        return self._full_extend(q, k, v, layer, forward_batch)


class ModuleGlobalAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        global _SWA_POOL
        _SWA_POOL = model_runner.token_to_kv_pool  # expect: KVP001
        _POOLS_BY_BACKEND[id(self)] = model_runner.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        _TRANSLATE_HOOKS.append(model_runner.token_to_kv_pool.translate_loc_from_full_to_swa)  # expect: KVP001


class CachedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @functools.cached_property
    def swa_sub_pool(self):  # expect: KVP001
        return self.token_to_kv_pool.swa_kv_pool

    @functools.lru_cache(maxsize=None)
    def swa_mapping(self):  # expect: KVP001
        return self.token_to_kv_pool.full_to_swa_index_mapping

    @functools.cache
    def is_swa(self):  # expect: KVP002
        return isinstance(self.token_to_kv_pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.is_swa():  # expect: KVP003
            loc = self.swa_mapping()[forward_batch.out_cache_loc]
            return self._decode(q, self.swa_sub_pool, loc)
        return self._decode(q, self.token_to_kv_pool, forward_batch.out_cache_loc)


class StoredClosureAttnBackend(AttentionBackend):
    """A closure over the init-time pool handed to a builder that outlives ``__init__``."""

    def __init__(self, model_runner):
        super().__init__()
        kv_pool = model_runner.token_to_kv_pool
        self.local_attn_builder = _LocalAttnBuilder(swa_translate=kv_pool.translate_loc_from_full_to_swa)  # expect: KVP001
        self.callbacks = [lambda loc: kv_pool.translate_loc_from_full_to_swa(loc)]  # expect: KVP001


class _LocalAttnBuilder:
    def __init__(self, swa_translate=None):
        self.swa_translate = swa_translate
