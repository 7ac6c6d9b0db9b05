"""Correct look-alikes of packed pool facts: factories over geometry, over the resolved pool or
over this forward's pool, helpers returning geometry only, lists no pool test picks."""
from __future__ import annotations

import threading
from dataclasses import dataclass

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from vendor.layers import SlidingWindowAttention, SWAAttention


@dataclass
class Geometry:
    window: int
    heads: int

    @classmethod
    def of(cls, config, pool):
        return cls(config.sliding_window_size, pool.head_num)

    @property
    def has_window(self):
        return self.window > 0


@dataclass
class View:
    sub: object = None

    @staticmethod
    def of(pool):
        return View(sub=getattr(pool, "swa_kv_pool", None))


def kv_shape(pool):
    return pool.page_size, pool.head_num, pool.head_dim


def _sizes(pool):
    yield "page", pool.page_size
    yield "layers", pool.layer_num


class FactoryLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.geometry = Geometry.of(model_runner, model_runner.token_to_kv_pool)
        self.shape = kv_shape(model_runner.token_to_kv_pool)
        self.sizes = dict(_sizes(model_runner.token_to_kv_pool))
        self.resolved = View.of(self._swa_kv_pool)
        ids = model_runner.model_config.swa_attention_layer_ids or ()
        self.window_layers = [i for i in range(8) if i in set(ids)]
        self._lock = threading.Lock()
        with self._lock:
            self.buffer = torch.zeros(self.shape[0])

        def bind(backend):
            return lambda loc: backend.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        self.to_swa = bind(self)

    def _resolve_swa_kv_pool(self, model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        view = View.of(self.token_to_kv_pool)  # this forward's pool
        if view.sub is not None and self.geometry.has_window:
            forward_batch.sub = view.sub
        if self.resolved.sub is not None and self.sizes["page"] > 1:
            forward_batch.resolved = True
        self.forward_ids = [i for i in range(8) if isinstance(self.token_to_kv_pool, SWAKVPool)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        if layer.layer_id in self.window_layers and layer.layer_id in self.forward_ids:
            return q
        return k if self.shape[1] > 1 else v


def _window_layer_ids(layers):
    for layer in layers:
        if isinstance(layer, SlidingWindowAttention):
            yield layer.layer_id


class LayerTypeLookalikeAttnBackend(AttentionBackend):
    """Lists filtered by a type test of the model's layers, not of the pool."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        layers = self.model_layers
        self.window_ids = [lay.layer_id for lay in layers if isinstance(lay, SWAAttention)]
        self.generated_ids = list(_window_layer_ids(layers))

    def forward_decode(self, q, k, v, layer, forward_batch):
        if layer.layer_id in self.window_ids or layer.layer_id in self.generated_ids:
            return q
        return k
