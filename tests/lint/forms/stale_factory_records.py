"""Records a factory of a record type builds from the pool (a classmethod or staticmethod of a
dataclass or NamedTuple, ``cls(...)``, ``cls._make(...)``, ``Rec(**fields)``), kept in
``__init__``: a decision on a field later reads the pool of that moment."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass(frozen=True)
class SWALayout:
    is_swa: bool
    swa_pool: Optional[object] = None

    @classmethod
    def from_pool(cls, pool):
        swa = isinstance(pool, SWAKVPool)
        return cls(is_swa=swa, swa_pool=pool.swa_kv_pool if swa else None)


class WindowView(NamedTuple):
    window_pool: Optional[object]
    to_swa: Optional[object]

    @classmethod
    def of(cls, pool):
        if not isinstance(pool, SWAKVPool):
            return cls(None, None)
        return cls._make((pool.swa_kv_pool, pool.full_to_swa_index_mapping))


@dataclass
class Shape:
    enabled: bool
    layers: tuple

    @staticmethod
    def probe(pool, count):
        fields = {"enabled": hasattr(pool, "swa_kv_pool"), "layers": tuple(range(count))}
        return Shape(**fields)


class FactoryRecordAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        layout = SWALayout.from_pool(self.token_to_kv_pool)
        self.layout = layout  # expect: KVP001
        self.view = WindowView.of(model_runner.token_to_kv_pool)  # expect: KVP001
        self.shape = Shape.probe(model_runner.token_to_kv_pool, 4)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.layout.is_swa:  # expect: KVP003
            forward_batch.windowed = True
        lay = self.layout
        forward_batch.sub = lay.swa_pool if lay.swa_pool is not None else None  # expect: KVP003
        if self.view.window_pool is not None:  # expect: KVP003
            forward_batch.view = self.view
        enabled = self.shape.enabled
        forward_batch.layers = self.shape.layers if enabled else ()  # expect: KVP003


class PoolProbe:
    def __init__(self, pool):
        self.is_swa = isinstance(pool, SWAKVPool)
        self.page_size = pool.page_size

    @classmethod
    def of(cls, pool):
        return cls(pool)


class PlainFactoryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.probe = PoolProbe.of(model_runner.token_to_kv_pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.probe.is_swa:  # expect: KVP003
            return q
        return k if self.probe.page_size > 1 else v
