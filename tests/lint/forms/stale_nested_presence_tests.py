"""Whether a pool (or one of its sub-pools) has an SWA-named field, asked once with getattr and a
None default: a duck test of what the pool is, whatever the field holds (a size, geometry)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class RingProbeBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.ring = getattr(pool.main_pool, "swa_req_ring_size", None) is not None  # expect: KVP002
        self.no_window = getattr(pool, "swa_window_size", None) is None  # expect: KVP002
        self.model_window = getattr(model_runner.model_config, "swa_window_size", None) is not None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.ring:  # expect: KVP003
            return k
        if getattr(self.token_to_kv_pool, "swa_req_ring_size", None) is not None:
            return v
        return q
