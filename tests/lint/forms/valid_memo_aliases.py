"""Memos filled through a local alias, keyed by the live pool or emptied every forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KeyedMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._by_pool = {}
        self._this_forward = {}

    def init_forward_metadata(self, forward_batch):
        self._this_forward = {}

    def _layer_buffers(self, layer_id):
        pool = self.token_to_kv_pool
        memo = self._by_pool
        key = (id(pool), layer_id)
        if key not in memo:
            memo[key] = pool.get_kv_buffer(layer_id)
        return memo[key]

    def _window_rows(self, layer_id):
        memo = self._this_forward
        if layer_id not in memo:
            memo[layer_id] = self.token_to_kv_pool.get_key_buffer(layer_id)
        return memo[layer_id]

    def _live_swa_side(self):
        try:
            return self.token_to_kv_pool.swa_kv_pool
        except AttributeError:
            return None

    def _value_rows(self, layer_id):
        pool = self.token_to_kv_pool
        if (id(pool), layer_id) not in self._by_pool:
            self._by_pool[(id(pool), layer_id)] = pool.get_value_buffer(layer_id)
        return self._by_pool[(id(pool), layer_id)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        lid = layer.layer_id
        return (self._layer_buffers(lid), self._window_rows(lid), self._value_rows(lid),
                self._live_swa_side())
