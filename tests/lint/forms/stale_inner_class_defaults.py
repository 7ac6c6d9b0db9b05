"""A wrapper building its inner backend from a class parameter's default (inner_cls=...): the
call builds that class, so the inner backend's pool it keeps is a pool kept once."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WindowedInner(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


class DefaultingWrapper(AttentionBackend):
    def __init__(self, model_runner, inner_cls=WindowedInner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.inner = inner_cls(model_runner)  # expect: KVP001
        self._inner_pool = self.inner.token_to_kv_pool  # expect: KVP001
        self.num_layers = self.inner.num_layers

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
