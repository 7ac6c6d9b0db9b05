"""A capacity folded over sub-pools (``sum``, ``min``, ``max`` of a generator or a list built
in place) is still the capacity of the pool the backend was built with: the FROZEN_KV draft's
64-token dummy pool and the target's SWA pool differ in every sub-pool's size."""
from __future__ import annotations

import math

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class FoldedSlotsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        parts = [self.token_to_kv_pool.full_kv_pool, self.token_to_kv_pool.swa_kv_pool]
        self.slot_budget = sum(part.size for part in parts)  # expect: KVP001
        self.tightest = min([part.size for part in parts if part is not None])  # expect: KVP001
        self.page_rows = math.ceil(max({p.size for p in parts}) / self.page_size)  # expect: KVP001
        self.widest_heads = max(part.head_num for part in parts)
        self.layer_total = sum(part.layer_num for part in parts)

    def init_forward_metadata(self, forward_batch):
        if forward_batch.out_cache_loc.numel() >= self.tightest:  # expect: KVP003
            raise RuntimeError("batch larger than the pool")
        return self.page_rows if self.widest_heads > 8 else self.layer_total


class FoldedSlotsPerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        parts = (self.token_to_kv_pool.full_kv_pool, self.token_to_kv_pool.swa_kv_pool)
        self.widest_heads = max(part.head_num for part in parts)

    def init_forward_metadata(self, forward_batch):
        parts = (self.token_to_kv_pool.full_kv_pool, self.token_to_kv_pool.swa_kv_pool)
        budget = sum(part.size for part in parts)
        if forward_batch.out_cache_loc.numel() >= budget:
            raise RuntimeError("batch larger than the pool")
        self.forward_metadata = torch.zeros(min(p.size for p in parts), dtype=torch.int32)
