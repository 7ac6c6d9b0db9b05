"""Augmented stores (``self.x |= v``, ``+=``) of a kept attribute: the store holds what it adds.
What the attribute held before is reported at the stores that made it, so an operand of
geometry or a constant picked by no pool test is clean even beside a store that is not."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Mode(enum.Flag):
    NONE = 0
    WINDOW = enum.auto()
    SWA = enum.auto()


class AugmentedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.mode = Mode.NONE
        if model_runner.sliding_window_size:
            self.mode |= Mode.WINDOW
        if isinstance(pool, SWAKVPool):
            self.mode |= Mode.SWA  # expect: KVP002
        self.tables = []
        self.tables += [model_runner.req_to_token_pool.req_to_token]
        self.tables += [pool.full_to_swa_index_mapping]  # expect: KVP001
        self.steps = 0
        self.steps += model_runner.page_size

    def init_forward_metadata(self, forward_batch):
        if Mode.SWA in self.mode:  # expect: KVP003
            forward_batch.swa = True
        if self.steps > 1:
            forward_batch.paged = True


class AugmentedGeometryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.mode = Mode.NONE
        if model_runner.sliding_window_size:
            self.mode |= Mode.WINDOW
        self.tables = [model_runner.req_to_token_pool.req_to_token]
        self.tables += [model_runner.req_to_token_pool.req_to_token]

    def init_forward_metadata(self, forward_batch):
        if Mode.WINDOW in self.mode and isinstance(self.token_to_kv_pool, SWAKVPool):
            forward_batch.swa = True
