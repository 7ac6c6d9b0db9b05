"""Correct look-alikes of the stale forms in stale_factory_records.py, stale_namespace_stores.py,
stale_defaults_and_subscripts.py, stale_unresolved_pool_attr.py, stale_picked_by_pool.py and
stale_module_state.py: the same spellings over geometry, over a pool resolved through the
allocator, or over state made again on every forward."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_PAGE_SIZE = 1
_HEADS = None


def _configure(page_size, heads):
    global _PAGE_SIZE, _HEADS
    _PAGE_SIZE = page_size
    _HEADS = heads


@dataclass(frozen=True)
class Geometry:
    window: int
    heads: int

    @classmethod
    def from_config(cls, model_runner):
        return cls(window=model_runner.sliding_window_size, heads=model_runner.num_heads)


class PoolView(NamedTuple):
    window_pool: Optional[object]
    to_swa: Optional[object]

    @classmethod
    def of(cls, pool):
        if not isinstance(pool, SWAKVPool):
            return cls(None, None)
        return cls._make((pool.swa_kv_pool, pool.full_to_swa_index_mapping))


class GeometryRecordsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.geometry = Geometry.from_config(model_runner)
        vars(self).update(page_size=model_runner.page_size, heads=model_runner.num_heads)
        sizes = {"window": model_runner.sliding_window_size}
        self.__dict__.update(sizes)
        for mode in ("decode", "extend"):
            setattr(self, f"_{mode}_window", model_runner.sliding_window_size)
        self.layer_windows = {i: (i, i % 2 == 0) for i in range(4)}
        self.k_buffers = [torch.empty(8) for _ in range(4)]
        self.v_buffers = [torch.empty(8) for _ in range(4)] if model_runner.sliding_window_size > 0 else []
        _configure(model_runner.page_size, model_runner.num_heads)

    @functools.cached_property
    def window_layers(self):
        if self.geometry.window > 0:
            return frozenset(range(4))
        return frozenset()

    @property
    def live_window_layers(self):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            return frozenset(range(4))
        return frozenset()

    def init_forward_metadata(self, forward_batch):
        view = PoolView.of(self.token_to_kv_pool)
        if view.window_pool is not None:
            forward_batch.view = view
        if self.geometry.window > 0 and self.page_size > 1 and self.window > 0:
            forward_batch.windowed = True
        if getattr(self, "_decode_window") > 0 or self._extend_window < 0:
            forward_batch.decode_window = True
        if _HEADS is None or _PAGE_SIZE > 1:
            forward_batch.page = _PAGE_SIZE

    def forward_decode(self, q, k, v, layer, forward_batch):
        window = getattr(layer, "sliding_window_size", self.geometry.window)
        if window > 0 and getattr(layer, "is_swa", self.heads > 8):
            q = q * 2
        if bool(self.layer_windows) and self.layer_windows[layer.layer_id][1]:
            q = q * 3
        if layer.layer_id in self.window_layers or layer.layer_id in self.live_window_layers:
            return q
        if self.k_buffers and self.v_buffers:
            return k
        return v


class ResolvedPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.window_buffers = []
        if self._swa_kv_pool is not None:
            self.window_buffers.append(torch.empty(8))

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        allocator_pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return allocator_pool if isinstance(allocator_pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self._swa_kv_pool is None or layer.sliding_window_size < 0:
            return q
        sub = getattr(layer, "swa_pool", self._swa_kv_pool)
        return k if sub is not None else v


class ConfigProbe:
    def __init__(self, model_runner):
        self.windowed = model_runner.sliding_window_size > 0

    @classmethod
    def of(cls, model_runner):
        return cls(model_runner)


class BuiltNamesGeometryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.probe = ConfigProbe.of(model_runner)
        self._decode_window = model_runner.sliding_window_size
        self._extend_window = model_runner.sliding_window_size
        self.k_buffers = {i: torch.empty(8) for i in range(4) if i % 2}

    @functools.cache
    def window_ids(self):
        return (1, 3) if self.probe.windowed else ()

    def forward_decode(self, q, k, v, layer, forward_batch):
        mode = forward_batch.forward_mode.name.lower()
        if getattr(self, f"_{mode}_window") > 0 and self.probe.windowed and self.k_buffers:
            return q
        return k if layer.layer_id in self.window_ids() else v
