"""A wrapper that hands the live pool to the child backends it was given, every forward, in a
loop over a method returning them: the children never read a pool the swap left behind."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PerForwardHandingBackend(AttentionBackend):
    def __init__(self, model_runner, full_backend, swa_backend):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.full_backend = full_backend
        self.swa_backend = swa_backend

    def _children(self):
        return (self.full_backend, self.swa_backend)

    def init_forward_metadata(self, forward_batch):
        live_pool = self.token_to_kv_pool
        for child in self._children():
            child.token_to_kv_pool = live_pool
            child.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        child = self.swa_backend if layer.sliding_window_size > -1 else self.full_backend
        return child.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
