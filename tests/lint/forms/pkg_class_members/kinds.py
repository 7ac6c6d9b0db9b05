"""Classifiers whose classmethods return a member of their own class (``cls.X``)."""
from __future__ import annotations

import enum

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Addressing(enum.Enum):
    DIRECT = "direct"
    WINDOWED = "windowed"

    @classmethod
    def of_pool(cls, pool) -> "Addressing":
        if isinstance(pool, SWAKVPool):
            return cls.WINDOWED
        return cls.DIRECT

    @classmethod
    def of_layer(cls, layer) -> "Addressing":
        if layer.sliding_window_size is not None:
            return cls.WINDOWED
        return cls.DIRECT


class PageMode:
    FLAT = 0
    TRANSLATED = 1

    @classmethod
    def probe(cls, pool) -> int:
        return cls.TRANSLATED if hasattr(pool, "full_to_swa_index_mapping") else cls.FLAT

    @classmethod
    def of_config(cls, model_config) -> int:
        return cls.TRANSLATED if model_config.sliding_window_size else cls.FLAT
