"""Correct look-alikes of a live descriptor: read per forward, its value used on the spot, a
descriptor over geometry."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class _FromPool:
    def __init__(self, field, fallback=None):
        self.field = field
        self.fallback = fallback

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj.token_to_kv_pool, self.field, self.fallback)


class LiveDescriptorLookalikeAttnBackend(AttentionBackend):
    rows = _FromPool("full_to_swa_index_mapping")
    page = _FromPool("page_size", 1)

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_at_start = self.page

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.swa_loc = self.rows[loc] if self.rows is not None else loc
