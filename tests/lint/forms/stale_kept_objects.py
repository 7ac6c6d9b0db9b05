import contextvars
import functools
import itertools
import queue
from types import SimpleNamespace

import numpy as np
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_LAUNCH_POOL: contextvars.ContextVar = contextvars.ContextVar("launch_pool")


def pick_table(layer, meta):
    return meta.swa_table if pick_table.windowed else meta.table  # expect: KVP003


def window_locator(pool):
    """A coroutine: full-pool ids in, SWA ids out; its frame keeps the mapping it read."""
    mapping = getattr(pool, "full_to_swa_index_mapping", None)
    result = None
    while True:
        loc = yield result
        result = None if mapping is None else mapping[loc]


def make_builder(pool, page_size):
    """A class specialised for one pool: its methods close over it."""

    class _Builder:
        layout = "window" if isinstance(pool, SWAKVPool) else "dense"

        def build(self, rows):
            return pool.translate_loc_from_full_to_swa(rows[:, ::page_size])

    return _Builder


def store_first(forward_fn, *, windowed):
    """A wrapper of a bound forward method deciding on a verdict it was made with."""

    def wrapper(q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        return forward_fn(q, k, v, layer, loc if windowed else None)

    return wrapper


def _publish(pool):
    _LAUNCH_POOL.set(pool)  # expect: KVP001


class LocalObjectBackend(AttentionBackend):
    """Pool state put on a local object (a namespace, the function object of a kernel) at init,
    then the object kept: the object holds the init-time pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        meta = SimpleNamespace()
        meta.kv_pool = model_runner.token_to_kv_pool
        self.meta = meta  # expect: KVP001

        def kernel(layer):
            return kernel.kv_pool.get_key_buffer(layer.layer_id)

        kernel.kv_pool = model_runner.token_to_kv_pool
        self._kernel = kernel  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._kernel(layer)


class HolderSetBackend(AttentionBackend):
    """The pool handed to a kept holder's setter (a context variable, a queue): kept in it."""

    _CLASS_POOL: contextvars.ContextVar = contextvars.ContextVar("class_pool")

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._pool_var = contextvars.ContextVar("pool")
        self._pool_var.set(model_runner.token_to_kv_pool)  # expect: KVP001
        self._CLASS_POOL.set(model_runner.token_to_kv_pool)  # expect: KVP001
        self._pools = queue.Queue()
        self._pools.put(model_runner.token_to_kv_pool)  # expect: KVP001
        _publish(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._pool_var.get().get_key_buffer(layer.layer_id)


class VerdictValueBackend(AttentionBackend):
    """A pool test's verdict turned into a value by a library call (a kernel argument)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self.mask = torch.tensor(windowed)  # expect: KVP002
        self.flag = np.bool_(windowed)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q if bool(self.mask) and self.flag else k  # expect: KVP003


class WrappedReaderBackend(AttentionBackend):
    """The init-time pool inside an iterator, a pool method inside a cache wrapper, the pool's
    capacity as a numpy scalar."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self._pools = itertools.repeat(pool)  # expect: KVP001
        self.key_of = functools.lru_cache(maxsize=8)(pool.get_key_buffer)  # expect: KVP001
        self.slots = np.int64(pool.size if isinstance(pool, SWAKVPool) else 0)  # expect: KVP001
        self.value_of = functools.lru_cache(maxsize=8)(self._value_buffer)  # expect: KVP001

    def _value_buffer(self, layer_id: int):  # (a cache around it keeps its first answers)
        return self.token_to_kv_pool.get_value_buffer(layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.slots > 0:  # expect: KVP003
            return next(self._pools).get_key_buffer(layer.layer_id)
        return self.key_of(layer.layer_id)


class MadeObjectsBackend(AttentionBackend):
    """A verdict on a function's attribute, a primed generator over the pool, a class made
    for the pool: each outlives __init__."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        pick_table.windowed = isinstance(pool, SWAKVPool)  # expect: KVP002
        self._locator = window_locator(pool)  # expect: KVP001
        next(self._locator)
        reader = window_locator(pool)
        next(reader)
        self._send = reader.send  # expect: KVP001
        self._builder_cls = make_builder(pool, model_runner.page_size)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if pick_table.windowed:  # expect: KVP003
            return pick_table(layer, self.forward_metadata)
        return self._locator.send(forward_batch.out_cache_loc)


class WrappedForwardBackend(AttentionBackend):
    """Its forward methods replaced at init by wrappers closing over a verdict made then."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        windowed = isinstance(self.token_to_kv_pool, SWAKVPool)
        self.forward_decode = store_first(self.forward_decode, windowed=windowed)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
