"""A pool's capacity is not geometry: the FROZEN_KV draft's dummy pool holds 64 tokens, the
target's SWA pool many more. Buffers sized by the pool the backend was built with, and the size
kept as a number, describe another pool after the swap."""
from __future__ import annotations

import torch
import triton

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SizedGraphBufferAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.device = model_runner.device
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_capacity = model_runner.token_to_kv_pool.size  # expect: KVP001
        self.swa_rows = model_runner.token_to_kv_pool.size_swa // self.page_size  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        pool = self.token_to_kv_pool
        self.swa_loc = torch.zeros(pool.size_swa, dtype=torch.int64, device=self.device)  # expect: KVP001
        slots = pool.size + self.page_size
        self.loc_table = torch.empty((slots, 2), dtype=torch.int32, device=self.device)  # expect: KVP001
        self.full_loc = torch.full((max_bs, self.kv_capacity), -1, device=self.device)  # expect: KVP001
        pages = triton.cdiv(pool.size_full, self.page_size)
        self.page_map = self.swa_loc.new_zeros(max(pages, 1))  # expect: KVP001
        self.swa_pages = torch.arange(self.swa_rows, device=self.device)  # expect: KVP001
