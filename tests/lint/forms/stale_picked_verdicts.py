"""Values a pool type or duck test picks, kept: a kernel family's name, an enum member, what a
classifying helper answers. Each is the test's verdict under another spelling (KVP002), and a
decision on it in a forward trusts the pool of __init__ (KVP003)."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Paging(enum.Enum):
    TWO_LEVEL = 2
    ONE_LEVEL = 1


def paging_of(pool) -> Paging:
    if getattr(pool, "full_to_swa_index_mapping", None) is None:
        return Paging.ONE_LEVEL
    return Paging.TWO_LEVEL


class PickedVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.family = "windowed_decode" if hasattr(pool, "translate_loc_from_full_to_swa") else "dense_decode"  # expect: KVP002
        self.paging = paging_of(pool)  # expect: KVP002
        if isinstance(pool, SWAKVPool):
            self.tile = 64  # expect: KVP002
        else:
            self.tile = 128  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.family == "windowed_decode":  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        else:
            loc = forward_batch.out_cache_loc
        if self.paging is Paging.TWO_LEVEL:  # expect: KVP003
            loc = loc.long()
        return q, loc, self.tile
