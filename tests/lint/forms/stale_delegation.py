"""``__getattr__`` delegating to pool state kept at construction: every name the backend does
not bind itself is read off the snapshot."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SnapshotDelegateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        object.__setattr__(self, "_inner", model_runner.token_to_kv_pool.swa_kv_pool)  # expect: KVP001
        self.window = model_runner.sliding_window_size

    def __getattr__(self, attr):
        inner = self.__dict__.get("_inner")
        return getattr(inner, attr)

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.window > 0 and self.is_swa_pool:  # expect: KVP003
            return q
        if self.full_to_swa_index_mapping is not None:  # expect: KVP003
            return v
        return k


class LiveDelegateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size

    def __getattr__(self, attr):
        return getattr(self.__dict__["token_to_kv_pool"], attr)

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.window > 0 and self.is_swa_pool:
            return q
        if self.full_to_swa_index_mapping is not None:
            return v
        return k
