"""A helper object the backend keeps fills its own state, once, from the pool it reads off the
backend or runner it holds: every later call answers from the first pool. Called per forward
(``self.bufs.get(layer_id)``, ``self.bufs[layer_id]`` of a dict with ``__missing__``)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LayerBuffers:
    def __init__(self, owner):
        self._owner = owner
        self._by_layer = {}

    def get(self, layer_id):
        if layer_id not in self._by_layer:
            self._by_layer[layer_id] = self._owner.token_to_kv_pool.get_kv_buffer(layer_id)
        return self._by_layer[layer_id]


class MissingBuffers(dict):
    def __init__(self, runner):
        super().__init__()
        self.runner = runner

    def __missing__(self, layer_id):
        buffers = self[layer_id] = self.runner.token_to_kv_pool.get_kv_buffer(layer_id)
        return buffers


class WindowHolder:
    """(its window sub-pool is pool state as the object is made: found there, once)"""

    def __init__(self, backend):
        self._backend = backend
        self._window = None

    def window(self):
        if self._window is None:
            pool = self._backend.token_to_kv_pool
            self._window = pool.swa_kv_pool
        return self._window


class KeyBuffers:
    """(a setdefault fill: found as the object is made, once)"""

    def __init__(self, backend):
        self._backend = backend
        self._keys = {}

    def key_buffer(self, layer_id):
        return self._keys.setdefault(
            layer_id, self._backend.token_to_kv_pool.get_key_buffer(layer_id))


class HelperFillsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.buffers = LayerBuffers(self)
        self.missing = MissingBuffers(model_runner)
        self.holder = WindowHolder(self)  # expect: KVP001
        self.keys = KeyBuffers(self)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self.buffers.get(layer.layer_id)  # expect: KVP001
        same = self.missing[layer.layer_id]  # expect: KVP001
        window = self.holder.window()
        keys = self.keys.key_buffer(layer.layer_id)
        return q, k_cache, v_cache, same, window, keys
