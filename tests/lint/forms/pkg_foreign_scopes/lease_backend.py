"""The backend: the mixin's flag and pool gated here, leases entered once."""
from __future__ import annotations

import contextlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import leases
from .window_mixin import LazyWindowMixin


class LeaseWindowAttnBackend(LazyWindowMixin, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._setup_window(model_runner)
        self._scopes = contextlib.ExitStack()
        self.leased = self._scopes.enter_context(leases.WindowLease(self.token_to_kv_pool))  # expect: KVP001
        with leases.translation(self.token_to_kv_pool) as fn:
            self.translate_fn = fn  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.has_window:  # expect: KVP003
            forward_batch.loc = self.translate_fn(forward_batch.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_kv_pool is not None and layer.sliding_window_size > 0:  # expect: KVP003
            return self.leased
        return None
