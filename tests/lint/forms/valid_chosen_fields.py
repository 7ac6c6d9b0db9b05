"""The look-alike of ``stale_chosen_fields``: the member and the reader picked from the pool of
each forward, and a kind kept from geometry (the window size) read through its field."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Kind(enum.Enum):
    FULL = "full"
    SWA = "swa"


class FullReader:
    name = "full"


class SwaReader(FullReader):
    name = "swa"


_READERS = {True: SwaReader, False: FullReader}


class LiveChoiceBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_kind = Kind.SWA if model_runner.sliding_window_size else Kind.FULL

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kind = Kind.SWA if isinstance(pool, SWAKVPool) else Kind.FULL
        reader = _READERS[isinstance(pool, SWAKVPool)]()
        if kind.value == "swa" and reader.name == "swa":
            return k
        if self.window_kind.value == "swa":
            return v
        return q
