"""A class constant picked by a pool test and read through the instance (``self.KIND_SWA``):
the verdict spelled as a constant, kept; a decision comparing it is a gate on that verdict."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ConstantKindAttnBackend(AttentionBackend):
    KIND_SWA = "swa"
    KIND_FULL = "full"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.kind = self.KIND_SWA if hasattr(pool, "swa_kv_pool") else self.KIND_FULL  # expect: KVP002
        self.page_kind = self.KIND_FULL

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.kind == self.KIND_SWA:  # expect: KVP003
            return q
        if self.page_kind == self.KIND_SWA:
            return k
        return v
