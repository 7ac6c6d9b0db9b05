"""A per-layer memo filled lazily through a local that holds the lookup (``view =
self.views.get(layer_id)``, then ``if view is None:`` fill it), in a helper the forward calls:
nothing empties the memo, so the buffers of the pool of the first forward outlive the swap."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LookupFillBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_keys = {}
        self._values = {}

    def _swa_key_view(self, layer_id):
        view = self._swa_keys.get(layer_id)
        if view is None:
            view = self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer_id)
            self._swa_keys[layer_id] = view  # expect: KVP001
        return view

    def _value_view(self, layer_id):
        found = self._values.get(layer_id)
        if found is not None:
            return found
        found = self.token_to_kv_pool.get_value_buffer(layer_id)
        self._values[layer_id] = found  # expect: KVP001
        return found

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._swa_key_view(layer.layer_id), self._value_view(layer.layer_id)
