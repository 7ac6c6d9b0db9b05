"""A pool-type helper asked in the constructor about the pool read there: the decision itself, as
an inline isinstance would be (what it picks and keeps is the store's finding, not a gate on a
kept flag), whether the constructor asks it or a helper it hands itself to does."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def pool_is_windowed(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def check_layout(backend, pool) -> None:
    if pool_is_windowed(pool) and backend.page_size != 1:
        raise ValueError("SWA pools need page size 1 here")


class AskingBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        pool = model_runner.token_to_kv_pool
        if pool_is_windowed(pool) and model_runner.sliding_window_size is None:
            raise ValueError("an SWA pool without a window")
        check_layout(self, pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if pool_is_windowed(self.token_to_kv_pool):
            return k
        return q
