"""Fill-once memos whose test has a second condition (``key not in memo and ready``): the body
still runs only where the memo lacks the key, so a key the swap does not change (the backend
itself, a layer id) keeps the first pool's state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_MAPS_BY_BACKEND: dict = {}


class ConjoinedMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._sub_by_layer = {}

    def init_forward_metadata(self, forward_batch):
        owner = id(self)
        pool = self.token_to_kv_pool
        if owner not in _MAPS_BY_BACKEND and getattr(pool, "full_to_swa_index_mapping", None) is not None:
            _MAPS_BY_BACKEND[owner] = pool.full_to_swa_index_mapping  # expect: KVP001
        forward_batch.swa_loc = _MAPS_BY_BACKEND.get(owner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        if self._sub_by_layer.get(lid) is None and layer.sliding_window_size > 0:
            self._sub_by_layer[lid] = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        return self._sub_by_layer.get(lid, q)
