"""Live look-alikes of module-level memos: keyed by the pool itself or its ``id()``,
refilled whenever the pool it was made for is not the current one, emptied by every forward
before it is filled, or holding only geometry both pools share."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_BY_POOL: dict = {}
_BY_POOL_ID: dict = {}
_LAST = {"pool": None, "mapping": None}
_PER_STEP: dict = {}
_GEOMETRY: dict = {}
_STEP_MAPPING = None


class LiveModuleMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def _by_pool(self):
        pool = self.token_to_kv_pool
        if pool not in _BY_POOL:
            _BY_POOL[pool] = pool.full_to_swa_index_mapping
        return _BY_POOL[pool]

    def _by_pool_id(self, layer_id):
        pool = self.token_to_kv_pool
        return _BY_POOL_ID.setdefault(id(pool), pool.swa_kv_pool).get_key_buffer(layer_id)

    def _refilled(self):
        pool = self.token_to_kv_pool
        if _LAST["pool"] is not pool:
            _LAST["pool"] = pool
            _LAST["mapping"] = pool.full_to_swa_index_mapping
        return _LAST["mapping"]

    def _per_step(self, layer_id):
        if layer_id not in _PER_STEP:
            _PER_STEP[layer_id] = self.token_to_kv_pool.swa_kv_pool
        return _PER_STEP[layer_id]

    def _step_mapping(self):
        global _STEP_MAPPING
        if _STEP_MAPPING is None:
            _STEP_MAPPING = self.token_to_kv_pool.full_to_swa_index_mapping
        return _STEP_MAPPING

    def _geometry(self):
        if "page_size" not in _GEOMETRY:
            _GEOMETRY["page_size"] = self.token_to_kv_pool.page_size
        return _GEOMETRY["page_size"]

    def init_forward_metadata(self, forward_batch):
        global _STEP_MAPPING
        _PER_STEP.clear()
        _STEP_MAPPING = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = self._by_pool()[forward_batch.out_cache_loc]
        loc = self._step_mapping()[self._refilled()[loc]] // self._geometry()
        key = self._by_pool_id(layer.layer_id)
        value = self._per_step(layer.layer_id).get_value_buffer(layer.layer_id)
        return torch.ops.sgl_kernel.live_memo_decode(q, key, value, loc, layer.scaling)
