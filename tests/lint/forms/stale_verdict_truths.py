"""The truth of a value a pool type test picked (a capability bit-field, a layout member): the
verdict again, kept as a boolean, and a gate on it is a gate on that verdict."""
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


class CapsTruthBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self._mapped = bool(caps_of(pool) & Caps.MAPPED)  # expect: KVP002
        setattr(self, "_windowed", bool(caps_of(pool) & Caps.SWA))  # expect: KVP002
        self.window = model_runner.sliding_window_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._mapped:  # expect: KVP003
            return k
        return v if self._windowed else q  # expect: KVP003
