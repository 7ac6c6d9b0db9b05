"""A dispatcher given its inner backends as a list tests the pool of one of them once: the pool
an element of that list reads is a pool like any other (``backends[0].token_to_kv_pool``)."""
from __future__ import annotations

from typing import List

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def is_windowed(pool) -> bool:
    return isinstance(pool, SWAKVPool)


class ListDispatchBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backends: List[AttentionBackend]):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.decode_backends = decode_backends
        self.decode_is_swa = is_windowed(decode_backends[0].token_to_kv_pool)  # expect: KVP002
        self.step_mapping = decode_backends[-1].token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.decode_is_swa:  # expect: KVP003
            return k
        if is_windowed(self.decode_backends[0].token_to_kv_pool):
            return v
        return q
