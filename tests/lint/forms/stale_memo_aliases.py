"""A memo the backend keeps, filled through a local bound to it: ``memo = self._bufs``,
``memo = self.__dict__.setdefault("_bufs", {})``, ``vars(self).setdefault(...)``. The local is
the memo: a fill keyed by the layer keeps the first pool's buffers past the swap. So does a
fill in ``except AttributeError:`` of what the ``try`` failed to read."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class AliasedMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._bufs = {}

    def _layer_buffers(self, layer_id):
        memo = self._bufs
        if layer_id not in memo:
            memo[layer_id] = self.token_to_kv_pool.get_kv_buffer(layer_id)  # expect: KVP001
        return memo[layer_id]

    def _swa_keys(self, layer_id):
        memo = self.__dict__.setdefault("_swa_keys_memo", {})
        if layer_id not in memo:
            memo[layer_id] = self.token_to_kv_pool.get_key_buffer(layer_id)  # expect: KVP001
        return memo[layer_id]

    def _swa_values(self, layer_id):
        memo = vars(self).setdefault("_swa_values_memo", {})
        return memo.setdefault(layer_id, self.token_to_kv_pool.get_value_buffer(layer_id))  # expect: KVP001

    def _swa_side(self):
        try:
            return self._swa_side_memo
        except AttributeError:
            self._swa_side_memo = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
            return self._swa_side_memo

    def _scales(self, layer_id):
        key = (layer_id, "k")
        memo = self._bufs
        if key not in memo:
            memo[key] = self.token_to_kv_pool.get_key_scale(layer_id)  # expect: KVP001
        return memo[key]

    def forward_decode(self, q, k, v, layer, forward_batch):
        lid = layer.layer_id
        return (self._layer_buffers(lid), self._swa_keys(lid), self._swa_values(lid),
                self._scales(lid), self._swa_side())
