"""A copy of a record with fields replaced (dataclasses.replace / copy.replace, a bare replace,
NamedTuple._replace) holds what its source held and what it was given; each field holds its
own, and a value given under a pool test is that test. An element unpacked from a kept record
and tested is a test of what the record holds. Geometry copies and per-forward copies are clean."""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import replace
from typing import NamedTuple, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclasses.dataclass(frozen=True)
class Plan:
    window: int = -1
    use_swa: bool = False
    rows: Optional[object] = None


class Opts(NamedTuple):
    heads: int
    windowed: bool = False


class CopiedRecordAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.plan = Plan(window=model_runner.sliding_window_size or -1)
        self.plan = replace(self.plan, use_swa=isinstance(pool, SWAKVPool))  # expect: KVP001
        self.opts = Opts(heads=model_runner.model_config.num_attention_heads)
        if hasattr(pool, "swa_kv_pool"):
            self.opts = self.opts._replace(windowed=True)  # expect: KVP001
        self.geometry = copy.replace(Plan(), window=8)
        self.pair = (getattr(pool, "full_to_swa_index_mapping", None), model_runner.page_size)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.plan.use_swa:  # expect: KVP003
            forward_batch.swa = True
        if self.opts.windowed:  # expect: KVP003
            forward_batch.windowed = True
        if self.geometry.window > 0:
            forward_batch.window = self.geometry.window
        rows, page = self.pair
        if rows is not None:  # expect: KVP003
            forward_batch.rows = rows


class PerForwardCopyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.plan = dataclasses.replace(Plan(), window=model_runner.sliding_window_size or -1)
        self.geom = (model_runner.sliding_window_size, model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        plan = dataclasses.replace(self.plan, use_swa=isinstance(pool, SWAKVPool),
                                   rows=getattr(pool, "full_to_swa_index_mapping", None))
        if plan.use_swa and plan.rows is not None:
            forward_batch.rows = plan.rows
        window, page = self.geom
        if window is not None and page > 1:
            forward_batch.window = window
