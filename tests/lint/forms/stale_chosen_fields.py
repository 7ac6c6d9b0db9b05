"""A value a pool type test picked once (an enum member, a class, the object built from a class
a verdict looked up) read through one of its fields: ``self.kind.value``, ``self.impl.name``
decide by that verdict."""
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


class ChosenFieldBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.kind = Kind.SWA if isinstance(pool, SWAKVPool) else Kind.FULL  # expect: KVP002
        self.reader = _READERS[isinstance(pool, SWAKVPool)]()  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.kind.value == "swa":  # expect: KVP003
            return k
        if self.reader.name == "swa":  # expect: KVP003
            return v
        return q
