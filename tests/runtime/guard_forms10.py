"""Stale state kept where no attribute of the backend shows it, written by guard7 after teaching
the generic check to look there (not blind: its author changed the check): forms nobody named
of the places the held-out set guard_forms9 (outside this repository) used (a module
``ContextVar``, a primed generator's frame, a ``global`` verdict, a ``weakref.proxy``), each with
a correct twin that keeps the same kind of place live or holds no pool in it.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses).
Classes of places and their forms here:

* module globals the class's code reads: a pool set with ``global`` in ``__init__``; a
  module-level ``threading.local`` holding the pool; a context variable set and read through
  module helper functions (the class's code names only the helpers); a verdict a module helper
  sets with ``global`` from a negated pool test; twins: the same global, thread-local, helper
  and verdict set again per forward, a module ``threading.local`` holding a workspace, and a
  module ``WeakValueDictionary`` of every pool built (shared by every backend of the module,
  so never judged: only what one backend keeps current is);
* frames of generators: a bound ``send`` of a primed generator kept instead of the generator;
  a generator defined in ``__init__`` closing over the pool (a closure cell, not a parameter);
  twin: a primed coroutine sent the live pool on every launch (its local is rebound per send,
  so it holds the pool the caller gave it last);
* context variables and weak proxies held by the instance: a per-instance ``ContextVar``; a
  ``weakref.proxy`` to the pool inside a record; twin: the proxy made again per forward;
* a class of the module used as a namespace of state (``_LaunchState.kv_pool = pool``,
  ``_LaunchState.windowed = isinstance(...)``) and a ``ContextVar`` as a class attribute of the
  backend; twins: the namespace and the class's variable set per forward, a namespace holding
  the model's geometry (a window size and a bool saying the model has one);
* the backend's own ``__slots__`` (outside ``__dict__``) holding a record with the pool and a
  primed generator over it; twin: the slotted record and generator made per forward.
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from types import SimpleNamespace

import torch

import guard_forms as gf
from guard_forms import is_swa as _is_swa

bb = gf.bb
FROZEN_KV = bb.FROZEN_KV
ALL = gf.ALL
SWAPPED = gf.SWAPPED


def _translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


def _windowed_read(pool, layer, forward_batch):
    """A kernel over ``pool``: its K buffer, write ids translated on its SWA layers."""
    return bb._read_kv(pool, layer, forward_batch, _translate(pool))


_Base10 = gf.KeepsPool

_launch_pool = None  # set with ``global`` by the backends below
_PER_THREAD = threading.local()
_kernel_pool: contextvars.ContextVar = contextvars.ContextVar("kernel_pool")
_DENSE_PAGES = True


def _publish(pool):
    _kernel_pool.set(pool)


def _published():
    return _kernel_pool.get()


def _configure_paging(pool):
    global _DENSE_PAGES
    _DENSE_PAGES = not _is_swa(pool)


def _key_pages(pool):
    """A primed reader: send a layer id, get that layer's K buffer of ``pool``."""
    layer_id = yield None
    while True:
        layer_id = yield pool.get_key_buffer(layer_id)


# =========================================================================== stale


class ModuleGlobalPoolAttnBackend(_Base10):
    """``global _launch_pool; _launch_pool = pool`` in ``__init__``: the launch reads the module
    global, the pool the backend was built with."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_launch_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        global _launch_pool
        _launch_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(_launch_pool, layer, forward_batch)
        return q


class ModuleThreadLocalAttnBackend(_Base10):
    """A module-level ``threading.local`` (``_PER_THREAD.kv_pool``) set in ``__init__``; the
    launch, on the constructing thread, reads it."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_PER_THREAD"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _PER_THREAD.kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(_PER_THREAD.kv_pool, layer, forward_batch)
        return q


class HelperContextVarAttnBackend(_Base10):
    """A module ``ContextVar`` set and read only through module helpers (``_publish``,
    ``_published``): the class's own code never names the variable."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_kernel_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _publish(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(_published(), layer, forward_batch)
        return q


class HelperGlobalVerdictAttnBackend(_Base10):
    """``_configure_paging(pool)`` in ``__init__`` sets the module global ``_DENSE_PAGES = not
    is_swa(pool)``: True for a FROZEN_KV draft's own pool, so the launch skips the translation
    on the target's SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_DENSE_PAGES"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _configure_paging(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch, None if _DENSE_PAGES else _translate(pool))
        return q


class BoundSendAttnBackend(_Base10):
    """Keeps only ``reader.send`` of a primed generator over the init-time pool (a builtin
    method: its ``__self__`` is the generator, whose frame holds the pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_next_keys"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        reader = _key_pages(model_runner.token_to_kv_pool)
        next(reader)
        self._next_keys = reader.send

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._next_keys(layer.layer_id)
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, _translate(self.token_to_kv_pool))
        return q


class ClosureGeneratorAttnBackend(_Base10):
    """A generator function defined in ``__init__`` closing over the init-time pool (a cell of
    the generator, not one of its parameters), primed and kept."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_keys"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool

        def keys():
            layer_id = yield None
            while True:
                layer_id = yield pool.get_key_buffer(layer_id)

        self._keys = keys()
        next(self._keys)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._keys.send(layer.layer_id)
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, _translate(self.token_to_kv_pool))
        return q


class InstanceContextVarAttnBackend(_Base10):
    """A ``ContextVar`` of its own (``self._pool_var``) set in ``__init__``: the launch reads
    its value, the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_pool_var"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pool_var = contextvars.ContextVar(f"pool_{id(self)}")
        self._pool_var.set(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self._pool_var.get(), layer, forward_batch)
        return q


class ProxyInRecordAttnBackend(_Base10):
    """A launch plan record holding ``weakref.proxy(pool)`` of the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "plan.kv"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.plan = SimpleNamespace(kv=weakref.proxy(model_runner.token_to_kv_pool),
                                    page_size=model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self.plan.kv, layer, forward_batch)
        return q


class _LaunchState:
    """A namespace of module state, assigned through its class attributes."""

    kv_pool = None
    windowed = False


class NamespacePoolAttnBackend(_Base10):
    """``_LaunchState.kv_pool = pool`` in ``__init__`` (a class of the module as a namespace):
    the launch reads it."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_LaunchState.kv_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _LaunchState.kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(_LaunchState.kv_pool, layer, forward_batch)
        return q


class NamespaceVerdictAttnBackend(_Base10):
    """``_LaunchState.windowed = isinstance(pool, SWAKVPool)`` in ``__init__``: False for a
    FROZEN_KV draft's own pool, so the launch skips the translation on the target's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_LaunchState.windowed"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _LaunchState.windowed = isinstance(model_runner.token_to_kv_pool, bb.SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool) if _LaunchState.windowed else None)
        return q


class ClassContextVarAttnBackend(_Base10):
    """A ``ContextVar`` as a class attribute (``_POOL_VAR``), set from ``__init__``: every
    instance's launch reads the pool the last one was built with."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_POOL_VAR"
    _POOL_VAR: contextvars.ContextVar = contextvars.ContextVar("class_pool")

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._POOL_VAR.set(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self._POOL_VAR.get(), layer, forward_batch)
        return q


class SlotRecordAttnBackend(_Base10):
    """Its own ``__slots__`` hold a plan record with the init-time pool and a primed reader
    generator over it (slots live outside ``__dict__``); the launch reads both."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "plan"
    __slots__ = ("plan", "reader")

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._build(model_runner.token_to_kv_pool)

    def _build(self, pool):
        self.plan = SimpleNamespace(kv=pool, page_size=self.page_size)
        self.reader = _key_pages(pool)
        next(self.reader)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.reader.send(layer.layer_id)
        _windowed_read(self.plan.kv, layer, forward_batch)
        return q


# =========================================================================== correct


class ModuleGlobalPoolPerForwardAttnBackend(ModuleGlobalPoolAttnBackend):
    """The same module global, set again from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        global _launch_pool
        _launch_pool = self.token_to_kv_pool


class ModuleThreadLocalWorkspaceAttnBackend(_Base10):
    """A module-level ``threading.local`` holding an index workspace and the page size (no
    pool); the pool is read live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _PER_THREAD.kv_indices = torch.zeros(16, dtype=torch.int64)
        _PER_THREAD.page_size = model_runner.page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        loc = _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        _PER_THREAD.kv_indices[: loc.numel()].copy_(loc)
        return q


class HelperContextVarPerForwardAttnBackend(HelperContextVarAttnBackend):
    """The same helpers, publishing the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        _publish(self.token_to_kv_pool)


class HelperGlobalVerdictPerForwardAttnBackend(HelperGlobalVerdictAttnBackend):
    """The same module verdict, configured again from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        _configure_paging(self.token_to_kv_pool)


def _keys_of():
    """A primed coroutine sent ``(pool, layer id)``: its ``pool`` is the one sent last."""
    keys = None
    while True:
        pool, layer_id = yield keys
        keys = pool.get_key_buffer(layer_id)


class SentPoolCoroutineAttnBackend(_Base10):
    """A primed coroutine kept for the backend's lifetime, sent the live pool on every launch:
    the pool in its frame is a local rebound per send, never one it was started with."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._keys = _keys_of()
        next(self._keys)
        self._keys.send((model_runner.token_to_kv_pool, 0))  # warm-up

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self._keys.send((self.token_to_kv_pool, 0))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._keys.send((self.token_to_kv_pool, layer.layer_id))
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, _translate(self.token_to_kv_pool))
        return q


_POOLS_BUILT: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class PoolRegistryStatsAttnBackend(_Base10):
    """Records every pool built in a module ``WeakValueDictionary`` (for memory statistics,
    shared by every backend of the module: a target's and a draft's pools side by side); the
    launch reads the live pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _POOLS_BUILT[id(model_runner.token_to_kv_pool)] = model_runner.token_to_kv_pool

    def pools_built(self) -> int:
        return len(_POOLS_BUILT)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        return q


class ProxyPerForwardAttnBackend(ProxyInRecordAttnBackend):
    """The same plan record, its proxy made again from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.plan.kv = weakref.proxy(self.token_to_kv_pool)


class NamespacePerForwardAttnBackend(NamespacePoolAttnBackend):
    """The same namespace, its pool set again from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        _LaunchState.kv_pool = self.token_to_kv_pool


class NamespaceVerdictPerForwardAttnBackend(NamespaceVerdictAttnBackend):
    """The same namespace verdict, decided again from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        _LaunchState.windowed = isinstance(self.token_to_kv_pool, bb.SWAKVPool)


class _ModelGeometry:
    """A namespace of the model's geometry: the same for the target and its draft."""

    window = 0
    has_window = False


class NamespaceGeometryAttnBackend(_Base10):
    """Keeps the model's window size and a bool saying it has one in a module namespace (not
    decided from a pool); the pool is read live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _ModelGeometry.window = getattr(model_runner, "sliding_window_size", None) or 4
        _ModelGeometry.has_window = _ModelGeometry.window > 0

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if _ModelGeometry.has_window else None)
        return q


class ClassContextVarPerForwardAttnBackend(ClassContextVarAttnBackend):
    """The same class-level ``ContextVar``, set from the live pool before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self._POOL_VAR.set(self.token_to_kv_pool)


class SlotRecordPerForwardAttnBackend(SlotRecordAttnBackend):
    """The same slotted record and generator, made again over the live pool before every
    launch."""

    EXPECT, CONFIGS = "correct", ALL
    __slots__ = ()

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.reader.close()
        self._build(self.token_to_kv_pool)


STALE = (
    ModuleGlobalPoolAttnBackend, ModuleThreadLocalAttnBackend, HelperContextVarAttnBackend,
    HelperGlobalVerdictAttnBackend, BoundSendAttnBackend, ClosureGeneratorAttnBackend,
    InstanceContextVarAttnBackend, ProxyInRecordAttnBackend, NamespacePoolAttnBackend,
    NamespaceVerdictAttnBackend, ClassContextVarAttnBackend, SlotRecordAttnBackend,
)
CORRECT = (
    ModuleGlobalPoolPerForwardAttnBackend, ModuleThreadLocalWorkspaceAttnBackend,
    HelperContextVarPerForwardAttnBackend, HelperGlobalVerdictPerForwardAttnBackend,
    SentPoolCoroutineAttnBackend, PoolRegistryStatsAttnBackend, ProxyPerForwardAttnBackend,
    NamespacePerForwardAttnBackend, NamespaceVerdictPerForwardAttnBackend,
    NamespaceGeometryAttnBackend, ClassContextVarPerForwardAttnBackend,
    SlotRecordPerForwardAttnBackend,
)
