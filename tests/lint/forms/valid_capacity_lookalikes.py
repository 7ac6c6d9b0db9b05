"""Correct look-alikes of capacity-sized buffers: sized by geometry, by the batch, by the
resolved pool, by the shared allocator, or allocated again on every forward."""
from __future__ import annotations

from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class GeometrySizedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.device = model_runner.device
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.max_context_len = model_runner.model_config.context_len
        self.max_num_pages = (self.max_context_len + self.page_size - 1) // self.page_size
        pool = model_runner.token_to_kv_pool
        self.head_num, self.head_dim = pool.head_num, pool.head_dim
        self.kv_dtype = pool.dtype
        self.window_pages = model_runner.sliding_window_size // self.page_size
        self.swa_capacity = model_runner.token_to_kv_pool_allocator.size_swa
        self._swa_kv_pool: Optional[SWAKVPool] = self._resolve_swa_kv_pool(model_runner)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        pool = self.token_to_kv_pool
        self.page_table = torch.zeros(max_bs, self.max_num_pages, dtype=torch.int32, device=self.device)
        self.k_scratch = torch.empty(max_num_tokens, pool.head_num, pool.head_dim, dtype=pool.dtype)
        self.window_table = torch.zeros((max_bs, self.window_pages + 1), dtype=torch.int32)
        self.shared_loc = torch.zeros(self.swa_capacity, dtype=torch.int64, device=self.device)
        if self._swa_kv_pool is not None:
            self.resolved_loc = torch.zeros(self._swa_kv_pool.size_swa, dtype=torch.int64)

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        self.scratch = torch.zeros(pool.size + 1, dtype=torch.int64, device=self.device)
        if forward_batch.out_cache_loc.numel() > pool.size:
            raise ValueError("more tokens than the pool holds")
