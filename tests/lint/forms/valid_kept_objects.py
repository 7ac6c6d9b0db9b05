import contextvars
import functools
import itertools
import threading
from types import SimpleNamespace

import numpy as np
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _translate(pool):
    return pool.translate_loc_from_full_to_swa if isinstance(pool, SWAKVPool) else None


def paged_first(forward_fn, *, page_size):
    """A wrapper of a bound forward method over geometry; the pool is read when it runs."""

    def wrapper(q, k, v, layer, forward_batch, save_kv_cache=True):
        return forward_fn(q, k, v, layer, forward_batch.out_cache_loc // page_size)

    return wrapper


def pages_locator(page_size):
    """A coroutine over geometry: the pool is sent with each request."""
    result = None
    while True:
        pool, loc = yield result
        result = pool.translate_loc_from_full_to_swa(loc) if isinstance(pool, SWAKVPool) else (
            loc // page_size)


def make_geometry_builder(page_size):
    class _Builder:
        def build(self, rows):
            return rows[:, ::page_size] // page_size

    return _Builder


def pick_pages(layer, meta):
    return meta.table if pick_pages.paged else meta.rows


class MadeGeometryBackend(AttentionBackend):
    """Generators, made classes and function attributes over geometry only."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pick_pages.paged = model_runner.page_size > 1
        self._locator = pages_locator(model_runner.page_size)
        next(self._locator)
        self._send = self._locator.send
        self._builder_cls = make_geometry_builder(model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._locator.send((self.token_to_kv_pool, forward_batch.out_cache_loc))


class LocalObjectGeometryBackend(AttentionBackend):
    """Local objects given geometry only, or built per forward from the live pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        meta = SimpleNamespace()
        meta.page_size = model_runner.page_size
        self.meta = meta

        def kernel(layer, forward_batch):  # reads the backend's pool when it is called
            return _translate(self.token_to_kv_pool)

        kernel.page_size = model_runner.page_size
        self._kernel = kernel

    def init_forward_metadata(self, forward_batch):
        plan = SimpleNamespace()
        plan.kv_pool = self.token_to_kv_pool
        self.forward_metadata = plan

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._kernel(layer, forward_batch)


class HolderSetLiveBackend(AttentionBackend):
    """Setters handed nothing, geometry, or the live pool per forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._ready = threading.Event()
        self._ready.set()
        self._pool_var = contextvars.ContextVar("pool")
        self._window = contextvars.ContextVar("window")
        self._window.set(model_runner.sliding_window_size)
        self.page_tensor = torch.tensor(model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        self._pool_var.set(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._pool_var.get().get_key_buffer(layer.layer_id)


@functools.lru_cache(maxsize=8)
def _pages_for(page_size: int, tokens: int) -> int:
    return (tokens + page_size - 1) // page_size


class WrappedGeometryBackend(AttentionBackend):
    """Iterators, cache wrappers and numpy scalars around geometry, or the live pool per call."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._sizes = itertools.cycle((model_runner.page_size, 2 * model_runner.page_size))
        self.pages_for = functools.partial(_pages_for, model_runner.page_size)
        self.window = np.int64(model_runner.sliding_window_size or 0)

    def _key_buffer(self, layer_id: int):
        return self.token_to_kv_pool.get_key_buffer(layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window > 0:
            return self._key_buffer(layer.layer_id)
        return next(self._sizes)


class WrappedGeometryForwardBackend(AttentionBackend):
    """Its forward method wrapped at init with geometry only."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_decode = paged_first(self.forward_decode, page_size=model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
