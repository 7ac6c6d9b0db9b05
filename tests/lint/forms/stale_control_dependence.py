"""Decisions that read a pool decision through control dependence, copies and locals."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class WindowMeta:
    use_swa: bool = False
    window: int = -1
    loc: Optional[torch.Tensor] = None


class WindowTuple(NamedTuple):
    windowed: bool
    page: int


class ControlDependentAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.device = model_runner.device
        self.is_swa = isinstance(pool, SWAKVPool)  # expect: KVP002
        self.meta = WindowMeta(use_swa=isinstance(pool, SWAKVPool), window=8)  # expect: KVP001
        self.shape = WindowTuple(isinstance(pool, SWAKVPool), 16)  # expect: KVP001
        self.maps = {"full_to_swa": getattr(pool, "full_to_swa_index_mapping", None)}  # expect: KVP001
        self.pool_copy = pool  # expect: KVP001
        self.window_loc = None
        self.window_table = None
        self.init_window_loc = None
        self.graph_rows = None
        self.mapped_rows = None
        if isinstance(pool, SWAKVPool):
            self.init_window_loc = torch.zeros(16, dtype=torch.int64, device=self.device)  # expect: KVP001
        elif hasattr(pool, "full_to_swa_index_mapping"):
            self.mapped_rows = torch.zeros(16, dtype=torch.int64, device=self.device)  # expect: KVP001

    @cached_property
    def window_sub_pool(self):  # expect: KVP001
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int):
        self.window_loc = torch.zeros(max_bs, dtype=torch.int64, device=self.device) if self.is_swa else None  # expect: KVP001
        if self.is_swa:  # expect: KVP003
            self.window_table = torch.zeros(max_bs, 8, dtype=torch.int32, device=self.device)  # (the gate's finding: no pool data)
        live = self.token_to_kv_pool
        if isinstance(live, SWAKVPool) and max_bs > 0:
            self.graph_rows = torch.zeros(max_bs, dtype=torch.int64, device=self.device)  # expect: KVP001

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens):
        if self.window_loc is None:  # expect: KVP003
            return
        table = self.window_table if self.window_table is not None else self.window_loc  # expect: KVP003
        table.zero_()
        rows = self.mapped_rows if self.mapped_rows is not None else table  # expect: KVP003
        if self.graph_rows is not None:  # expect: KVP003
            self.graph_rows.zero_()
        while self.init_window_loc is not None:  # expect: KVP003
            rows.zero_()
            break

    def describe(self) -> str:
        return "swa" if self.pool_copy is not None and self.pool_copy.size > 0 else "full"  # expect: KVP003

    def kv_bytes(self) -> int:
        if isinstance(self.window_sub_pool, SWAKVPool):  # expect: KVP003
            return 2
        return 1

    def init_forward_metadata(self, forward_batch):
        md = copy.copy(self.meta)
        if md.use_swa:  # expect: KVP003
            forward_batch.swa = True
        shape = self.shape._replace(page=32)
        if shape.windowed:  # expect: KVP003
            forward_batch.page = shape.page
        deep = replace(copy.deepcopy(self.meta), loc=forward_batch.out_cache_loc)
        again = replace(deep, window=4)
        forward_batch.window = again.window if again.use_swa else -1  # expect: KVP003
        mapping = self.maps["full_to_swa"]
        if mapping is not None:  # expect: KVP003
            forward_batch.loc = mapping[forward_batch.out_cache_loc]
        sub = self.maps.get("full_to_swa") or None  # expect: KVP003
        forward_batch.has_map = callable(sub)
        window = self.window_sub_pool
        if window is not None:  # expect: KVP003
            forward_batch.window_pool = window
