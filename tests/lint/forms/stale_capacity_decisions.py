"""Decisions on a capacity kept past the swap: the number describes the pool the backend was
built with (the FROZEN_KV draft's 64-token dummy), so every test of it, ordering, equality or
truth, in any decision, decides for another pool than the one each forward uses."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CapacityBoundBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_slots = getattr(model_runner.token_to_kv_pool, "size_swa", 0)  # expect: KVP001
        self.full_rows = -(-self.token_to_kv_pool.size // self.page_size)  # expect: KVP001
        self.buckets = [64, 256, 1024]


class CapacityDecidingAttnBackend(CapacityBoundBaseAttnBackend):
    def init_forward_metadata(self, forward_batch):
        used = forward_batch.seq_lens_cpu.sum().item()
        while used >= self.kv_slots > 0:  # expect: KVP003
            used -= self.page_size
        fits = [b for b in self.buckets if b <= self.full_rows]  # expect: KVP003
        self.forward_metadata = (used, fits)

    def forward_decode(self, q, k, v, layer, forward_batch):
        rows = self.full_rows
        if rows == 0:  # expect: KVP003
            return q
        if not self.kv_slots:  # expect: KVP003
            return k
        return torch.empty_like(q)


class CapacityVerdictAttnBackend(AttentionBackend):
    """A comparison of the capacity, kept: the verdict on the pool of that moment."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.has_window = getattr(pool, "size_swa", 0) > 0  # expect: KVP001
        self.tight = pool.size < 4 * model_runner.page_size  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.has_window and layer.sliding_window_size > 0:  # expect: KVP003
            return q
        return k if self.tight else v  # expect: KVP003
