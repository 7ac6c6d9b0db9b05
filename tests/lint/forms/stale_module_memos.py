"""Fill-once memos that live outside the backend: a module global dict, a dict nested in a
module-level registry, an attribute of a module-level namespace, a ``global`` filled once
behind ``is None``, ``setdefault`` on a module dict. Each is filled from the active pool by a
helper the forward calls, keyed by something the pool swap does not change (a class name, a
layer id, a constant), so the first pool's state is served after every later swap."""
from __future__ import annotations

import types

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_WINDOW_MAPS: dict = {}
_REGISTRY = {"sub_pools": {}, "tables": {}}
_STATE = types.SimpleNamespace(translators={})
_FIRST_MAPPING = None


class ModuleMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size

    def _window_map(self):
        name = self.__class__.__qualname__
        if name not in _WINDOW_MAPS:
            _WINDOW_MAPS[name] = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        return _WINDOW_MAPS[name]

    def _sub_pool(self, layer_id):
        if _REGISTRY["sub_pools"].get(layer_id) is None:
            _REGISTRY["sub_pools"][layer_id] = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        return _REGISTRY["sub_pools"][layer_id]

    def _translator(self):
        translate = self.token_to_kv_pool.translate_loc_from_full_to_swa
        return _STATE.translators.setdefault("swa", translate)  # expect: KVP001

    def _first_mapping(self):
        global _FIRST_MAPPING
        if _FIRST_MAPPING is None:
            _FIRST_MAPPING = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        return _FIRST_MAPPING

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = self._window_map()[forward_batch.out_cache_loc]
        loc = self._translator()(self._first_mapping()[loc])
        key = self._sub_pool(layer.layer_id).get_key_buffer(layer.layer_id)
        return torch.ops.sgl_kernel.module_memo_decode(q, key, loc, layer.scaling)


_WINDOWED_BY_NAME: dict = {}


class VerdictByNameAttnBackend(AttentionBackend):
    """The same verdict memo keyed by the backend's class name: filled once, for the pool
    the first forward saw, and served after every swap."""

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        name = type(self).__name__
        if name not in _WINDOWED_BY_NAME:  # expect: KVP003
            _WINDOWED_BY_NAME[name] = hasattr(pool, "full_to_swa_index_mapping")  # expect: KVP002
        if _WINDOWED_BY_NAME[name]:  # expect: KVP003
            forward_batch.swa_loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
