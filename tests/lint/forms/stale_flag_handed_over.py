"""A draft backend copying the SWA flag of the target backend it is handed, directly or through
a local that picks it (``src = target if target is not None else self``, ``target or self``):
a verdict made on another backend's pool, blind to this one's swaps."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HandedFlagDraftBackend(AttentionBackend):
    def __init__(self, model_runner, target_attn_backend=None):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.direct = target_attn_backend.use_sliding_window_kv_pool  # expect: KVP002
        src = target_attn_backend if target_attn_backend is not None else self
        self.picked = getattr(src, "use_sliding_window_kv_pool", False)  # expect: KVP002
        other = target_attn_backend or self
        self.either = other.use_sliding_window_kv_pool  # expect: KVP002
        self.num_kv_splits = getattr(src, "num_kv_splits", 8)

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.picked:  # expect: KVP003
            return q
        return k
