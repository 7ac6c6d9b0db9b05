"""A wrapper copying a flag of the inner backend its annotation names: the inner backend's own
attribute (here geometry: the model has a sliding window), not a runner-level SWA flag, even
where the wrapper's constructor takes no runner at all."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WindowedInner(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.has_sliding_window = model_runner.sliding_window_size is not None


class CopyingWrapper(AttentionBackend):
    def __init__(self, inner: "WindowedInner"):
        self.inner = inner
        self.has_sliding_window = inner.has_sliding_window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.has_sliding_window:
            return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return q
