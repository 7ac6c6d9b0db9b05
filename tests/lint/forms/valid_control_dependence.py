"""Look-alikes of control-dependent decisions on live state: none of these is stale."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class WindowMeta:
    use_swa: bool = False
    window: int = -1
    loc: Optional[torch.Tensor] = None


class LiveControlAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.device = model_runner.device
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        window = model_runner.sliding_window_size
        self.template = WindowMeta(window=window or -1)
        self.heads, self.page = (8, 16) if window else (8, 1)
        self.graph_loc = None
        self.window_table = None
        self.resolved_rows = None
        self.layer_rows = None
        self.forward_maps = {}

    def _resolve_swa_kv_pool(self, model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    @property
    def live_sub_pool(self):
        pool = self.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int, layers=()):
        self.graph_loc = torch.zeros(max_bs, dtype=torch.int64, device=self.device)
        if self._swa_kv_pool is not None:
            self.window_table = torch.zeros(max_bs, 8, dtype=torch.int32, device=self.device)
        if isinstance(self._swa_kv_pool, SWAKVPool):
            self.resolved_rows = torch.zeros(max_bs, dtype=torch.int64, device=self.device)
        if any(isinstance(layer, SWAKVPool) for layer in layers):
            self.layer_rows = torch.zeros(max_bs, dtype=torch.int64, device=self.device)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens):
        if self.graph_loc is None or self.window_table is None:
            return
        if self.resolved_rows is not None and self.layer_rows is not None:
            self.resolved_rows.zero_()
        self.graph_loc.zero_()

    def describe(self) -> str:
        return "swa" if self._swa_kv_pool is not None and self.page > 1 else "full"

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        on, sub = (True, pool.swa_kv_pool) if isinstance(pool, SWAKVPool) else (False, None)
        for windowed, page in ((on, self.page), (False, 1)):
            forward_batch.page = page if windowed else 1
        md = replace(self.template, use_swa=isinstance(pool, SWAKVPool))
        again = copy.copy(md)
        if md.use_swa and again.use_swa and sub is not None:
            forward_batch.swa = True
        self.forward_maps = {"full_to_swa": getattr(pool, "full_to_swa_index_mapping", None)}
        mapping = self.forward_maps.get("full_to_swa")
        if mapping is not None and on:
            forward_batch.loc = mapping[forward_batch.out_cache_loc]
        live = self.live_sub_pool
        if live is not None and self.heads > 0:
            forward_batch.window_pool = live
