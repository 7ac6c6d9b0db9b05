"""Stores made in a branch of a reported stale gate (rel5 D1): what holds no pool data (a zeros
buffer, a window size, an env value, a constant table) is right once the gate is fixed, so the
gate's finding counts it; what holds pool data, is sized by the pool, is made away from the
gate, or is a literal the gate picks (a second-order flag: ``self.unified = 1``) keeps its own
KVP001."""
from __future__ import annotations

import os

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class GuardedBuffersAttnBackend(AttentionBackend):
    """An else branch with an env value, a nested if."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.device = model_runner.device
        self.window_on = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if self.window_on:  # expect: KVP003
            self.unified = 1  # expect: KVP001
        else:
            self.unified = int(os.environ.get("UNIFIED_ATTN", "0"))

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if self.window_on:  # expect: KVP003
            if max_bs > 8:
                self.graph_window_pages = torch.zeros(max_bs, 64, dtype=torch.int32, device=self.device)
            self.graph_window_loc = torch.empty(max_num_tokens, dtype=torch.int64, device=self.device)


class GuardedMatchAttnBackend(AttentionBackend):
    """A match on the flag; a dict entry and a window size from the environment in its case."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.has_window = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.graph_meta = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        match self.has_window:  # expect: KVP003
            case True:
                self.graph_meta["window_table"] = torch.zeros(max_bs, 8)
                self.window = int(os.environ.get("WINDOW", "4096"))


class GuardedPoolDataTwinAttnBackend(AttentionBackend):
    """Twins: pool data, a buffer sized by the pool, and a buffer after an early return keep
    their own finding."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.swa = isinstance(pool, SWAKVPool)  # expect: KVP002
        if self.swa:  # expect: KVP003
            self.swa_rows = pool.full_to_swa_index_mapping  # expect: KVP001
            self.swa_loc = torch.zeros(pool.size_swa, dtype=torch.int64)  # expect: KVP001
        self.late_table = self._late_table()  # expect: KVP001

    def _late_table(self):
        if not self.swa:  # expect: KVP003
            return None
        return torch.zeros(8)
