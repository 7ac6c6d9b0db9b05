"""Members picked by a pool test, spelled through the class of self or by name: kept, they are
that test. Picked by geometry or per forward, they are not."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Paging(enum.Enum):
    FLAT = 0
    SPLIT = 1


class MemberPickAttnBackend(AttentionBackend):
    FULL_ROWS = "full"
    SWA_ROWS = "swa"

    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.rows_kind = type(self).SWA_ROWS  # expect: KVP002
            self.paging = Paging["SPLIT"]  # expect: KVP002
        else:
            self.rows_kind = self.__class__.FULL_ROWS  # expect: KVP002
            self.paging = Paging["FLAT"]  # expect: KVP002
        self.window_kind = type(self).SWA_ROWS if model_runner.sliding_window_size else "none"

    def init_forward_metadata(self, forward_batch):
        if self.rows_kind == type(self).SWA_ROWS:  # expect: KVP003
            forward_batch.swa = True
        if self.paging is Paging.SPLIT:  # expect: KVP003
            forward_batch.split = True
        if self.window_kind != "none":
            forward_batch.window = True


class LiveMemberPickAttnBackend(AttentionBackend):
    SWA_ROWS = "swa"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        rows_kind = type(self).SWA_ROWS if isinstance(pool, SWAKVPool) else None
        self.paging = Paging["SPLIT"] if isinstance(pool, SWAKVPool) else Paging["FLAT"]
        if rows_kind is not None and self.paging is Paging.SPLIT:
            forward_batch.swa = True
