"""Correct look-alikes of ``stale_helper_fills``: the helper checks the pool it filled from
against the live one, keys its state by the pool, fills geometry only, or is made anew (or
emptied) for every forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CheckedBuffers:
    def __init__(self, owner):
        self._owner = owner
        self._pool = None
        self._by_layer = {}

    def get(self, layer_id):
        pool = self._owner.token_to_kv_pool
        if pool is not self._pool:
            self._pool, self._by_layer = pool, {}
        if layer_id not in self._by_layer:
            self._by_layer[layer_id] = pool.get_kv_buffer(layer_id)
        return self._by_layer[layer_id]


class PoolKeyedBuffers:
    def __init__(self, owner):
        self._owner = owner
        self._by_layer = {}

    def get(self, layer_id):
        pool = self._owner.token_to_kv_pool
        key = (id(pool), layer_id)
        if key not in self._by_layer:
            self._by_layer[key] = pool.get_kv_buffer(layer_id)
        return self._by_layer[key]


class PageGeometry:
    def __init__(self, owner):
        self._owner = owner
        self._page = None

    def page_size(self):
        if self._page is None:
            self._page = self._owner.token_to_kv_pool.page_size
        return self._page


class PerForwardBuffers:
    def __init__(self, owner):
        self._owner = owner
        self._by_layer = {}

    def get(self, layer_id):
        if layer_id not in self._by_layer:
            self._by_layer[layer_id] = self._owner.token_to_kv_pool.get_kv_buffer(layer_id)
        return self._by_layer[layer_id]


class ResetBuffers:
    def __init__(self, owner):
        self._owner = owner
        self._by_layer = {}

    def reset(self):
        self._by_layer = {}

    def get(self, layer_id):
        if layer_id not in self._by_layer:
            self._by_layer[layer_id] = self._owner.token_to_kv_pool.get_kv_buffer(layer_id)
        return self._by_layer[layer_id]


class ClearedBuffers(dict):
    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def __missing__(self, layer_id):
        buffers = self[layer_id] = self._owner.token_to_kv_pool.get_kv_buffer(layer_id)
        return buffers


class CheckedHelpersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.checked = CheckedBuffers(self)
        self.keyed = PoolKeyedBuffers(self)
        self.geometry = PageGeometry(self)
        self.per_forward = None
        self.reset_buffers = ResetBuffers(self)
        self.cleared = ClearedBuffers(self)

    def init_forward_metadata(self, forward_batch):
        self.per_forward = PerForwardBuffers(self)
        self.reset_buffers.reset()
        self.cleared.clear()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        checked = self.checked.get(layer.layer_id)
        keyed = self.keyed.get(layer.layer_id)
        fresh = self.per_forward.get(layer.layer_id)
        reset = self.reset_buffers.get(layer.layer_id)
        return q, checked, keyed, fresh, reset, self.cleared[layer.layer_id]
