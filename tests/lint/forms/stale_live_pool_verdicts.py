"""Verdicts picked by a type test of ``self.token_to_kv_pool`` in ``__init__``: the attribute is
the swap point, live when read, but the verdict taken from it there is kept, exactly as one
taken from the runner's pool is (``stale_picked_verdicts``). A match on the pool binding a
local then stored, a ternary, a branch on a local alias, an enum member picked by a helper."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Paging(enum.Enum):
    FLAT = 0
    TWO_LEVEL = 1


def paging_of(pool) -> Paging:
    return Paging.TWO_LEVEL if hasattr(pool, "full_to_swa_index_mapping") else Paging.FLAT


class LivePoolVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        match self.token_to_kv_pool:
            case SWAKVPool(swa_layer_nums=n) if n > 0:
                family = "windowed"
            case _:
                family = "dense"
        self.family = family  # expect: KVP002
        self.tile = 64 if isinstance(self.token_to_kv_pool, SWAKVPool) else 128  # expect: KVP002
        pool = self.token_to_kv_pool
        if hasattr(pool, "translate_loc_from_full_to_swa"):
            route = 2
        else:
            route = 1
        self.route = route  # expect: KVP002
        self.paging = paging_of(self.token_to_kv_pool)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.family == "windowed":  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.paging is Paging.TWO_LEVEL and self.route > 1:  # expect: KVP003
            loc = loc // self.tile
        forward_batch.read_loc = loc
