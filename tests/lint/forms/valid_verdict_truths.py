"""The look-alike of ``stale_verdict_truths``: the same bit-field asked of the pool of each
forward, and a kept boolean of geometry only."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Caps(enum.Flag):
    NONE = 0
    SWA = enum.auto()
    MAPPED = enum.auto()


def caps_of(pool):
    caps = Caps.NONE
    if isinstance(pool, SWAKVPool):
        caps |= Caps.SWA | Caps.MAPPED
    return caps


class LiveCapsBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._windowed = bool(model_runner.sliding_window_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if bool(caps_of(forward_batch.token_to_kv_pool) & Caps.MAPPED):
            return k
        return v if self._windowed else q
