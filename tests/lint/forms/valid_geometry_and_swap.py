"""Correct look-alikes: the swap point, geometry, the allocator, and non-backend classes."""
from __future__ import annotations

from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class GeometryOnlyAttnBackend(AttentionBackend):
    def __init__(self, model_runner, skip_prefill: bool = False):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.page_size = model_runner.token_to_kv_pool.page_size
        self.head_num = self.token_to_kv_pool.head_num
        self.head_dim = self.token_to_kv_pool.head_dim
        self.kv_dtype = self.token_to_kv_pool.get_key_buffer(0).dtype
        self.sliding_window_size = model_runner.sliding_window_size
        self.has_swa = self.sliding_window_size is not None and self.sliding_window_size > -1
        self.num_layers = model_runner.model_config.num_hidden_layers
        self.paged = isinstance(model_runner.token_to_kv_pool_allocator, PagedTokenToKVPoolAllocator)
        self.is_draft = model_runner.is_draft_worker

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int):
        # sized from geometry; decided by the window size, not by the pool
        self.cuda_graph_page_table = torch.zeros(max_bs, 128, dtype=torch.int32)
        if self.has_swa:
            self.cuda_graph_swa_page_table = torch.zeros(max_bs, 128, dtype=torch.int32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.has_swa and layer.sliding_window_size > 0:
            return self._window_decode(q, layer, forward_batch)
        return self._decode(q, layer, forward_batch)


class PoolStatsReporter:
    """Not an attention backend: keeping the pool here is out of scope."""

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.is_swa = isinstance(self.pool, SWAKVPool)

    def report(self):
        return "swa" if self.is_swa else "full"


class LocalNamesAttnBackend(AttentionBackend):
    """Locals named like flags, decided inside one forward, are not backend state."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_metadata = None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        use_sliding_window_kv_pool = isinstance(pool, SWAKVPool)
        loc = forward_batch.out_cache_loc
        if use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            loc = pool.translate_loc_from_full_to_swa(loc)
        if save_kv_cache:
            pool.set_kv_buffer(layer, loc, k, v)
        return self._extend(q, k, v, layer, forward_batch)


class OptionalPoolTypingAttnBackend(AttentionBackend):
    """Annotations naming SWAKVPool are not type tests."""

    def __init__(self, model_runner):
        super().__init__()
        self._swa_kv_pool: Optional[SWAKVPool] = None
        self.window_left = (model_runner.sliding_window_size or 0) - 1
