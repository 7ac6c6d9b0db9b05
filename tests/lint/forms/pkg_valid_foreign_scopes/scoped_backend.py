"""Gates on the resolved pool; geometry leased once; the mapping leased per forward."""
from __future__ import annotations

import contextlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .resolved_mixin import ResolvedWindowMixin
from .scopes import HeadLease, mapping_scope


class ScopedWindowAttnBackend(ResolvedWindowMixin, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._setup_window(model_runner)
        with contextlib.ExitStack() as stack:
            self.heads, self.head_dim = stack.enter_context(HeadLease(self.token_to_kv_pool))

    def init_forward_metadata(self, forward_batch):
        if self.has_window:
            forward_batch.loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        with mapping_scope(self.token_to_kv_pool) as mapping:
            if mapping is not None and self._swa_kv_pool is not None:
                return mapping[forward_batch.out_cache_loc]
        return self.heads * self.head_dim
