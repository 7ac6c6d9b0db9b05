"""The same conjoined memo tests keyed by the pool of this call: a swapped-in pool is a new
key, filled for itself (a condition beside the key only skips pools it does not apply to)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_MAPS_BY_POOL: dict = {}


class ConjoinedPoolMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._sub_by_pool = {}

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        if id(pool) not in _MAPS_BY_POOL and getattr(pool, "full_to_swa_index_mapping", None) is not None:
            _MAPS_BY_POOL[id(pool)] = pool.full_to_swa_index_mapping
        forward_batch.swa_loc = _MAPS_BY_POOL.get(id(pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        live = self.token_to_kv_pool
        if layer.sliding_window_size > 0 and self._sub_by_pool.get(live) is None:
            self._sub_by_pool[live] = getattr(live, "swa_kv_pool", None)
        return self._sub_by_pool.get(live) or q
