"""The look-alike of ``stale_lookup_fills``: the same lookups and fills, but each forward
empties the memo before using it (or keys it by the pool itself), so a swapped pool's buffers
are read again."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class FreshLookupBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_keys = {}
        self._values = {}

    def init_forward_metadata(self, forward_batch):
        self._swa_keys = {}

    def _swa_key_view(self, layer_id):
        view = self._swa_keys.get(layer_id)
        if view is None:
            view = self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer_id)
            self._swa_keys[layer_id] = view
        return view

    def _value_view(self, layer_id):
        pool = self.token_to_kv_pool
        found = self._values.get((id(pool), layer_id))
        if found is not None:
            return found
        found = pool.get_value_buffer(layer_id)
        self._values[(id(pool), layer_id)] = found
        return found

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._swa_key_view(layer.layer_id), self._value_view(layer.layer_id)
