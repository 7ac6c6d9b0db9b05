"""Its twin: the wrapper hands its inner backend the live pool every forward (a setter), and
keeps only the inner backend's geometry."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PlainInner(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


class HandingWrapper(AttentionBackend):
    def __init__(self, model_runner, inner_cls=PlainInner):
        self._pool = model_runner.token_to_kv_pool
        self.inner = inner_cls(model_runner)
        self.num_layers = self.inner.num_layers

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.inner.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
