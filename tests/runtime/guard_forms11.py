"""Backends no table of the guard names, written blind from the bug class by rt16 (the guard's
implementation unread while they were written): places for SWA state the earlier sets do not
use, each stale class with a correct twin keeping the same kind of place live, or keeping no
pool-derived state in it.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses).
Stale forms: the pool's class kept as the key into a class-keyed kernel table; the SWA index
space's size as a ``numpy.int64`` (0 without an SWA pool) deciding the translation; the pool in
an ``itertools.repeat`` iterator; per-step inner backends rotated by ``itertools.cycle``; a
``defaultdict`` whose default factory closes over the pool; the pool as an attribute of a
kernel function (``kernel.kv_pool``); a ``weakref.WeakMethod`` of the pool's reader; a verdict
``init_cuda_graph_state`` decides; a verdict as a 0-d bool tensor; a verdict in a ``ChainMap``
layer; a closure over the pool bound to the backend with ``types.MethodType``; an SWA pool
resolved through the allocator without the draft check, in a ``functools.cached_property``
(an EAGLE draft). Correct twins: the class-keyed table looked up with the live pool's type;
window geometry as a tensor and a ``numpy`` int; ``__getattr__`` delegation to the live pool;
CUDA-graph state whose verdict is decided again per forward; a ``defaultdict`` of per-layer
workspaces; a bound closure reading the backend's live pool.

The blind measure (main at 13e079c, the guard unchanged): 4 of 12 stale classes refused, 6 of
6 correct ones launched. Three correct twins of what the guard then learnt to read were added
after (not blind): an ``SWAKVPool`` class kept as an ``isinstance`` tool, the verdict tensor
written in place per forward beside a kernel function carrying geometry, the allocator in an
``itertools.repeat``.
"""

from __future__ import annotations

import collections
import functools
import itertools
import types
import weakref

import numpy as np
import torch

import guard_forms as gf
from guard_forms import is_swa as _is_swa

from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool  # after guard_forms: CPU-safe

bb = gf.bb
FROZEN_KV, EAGLE = bb.FROZEN_KV, bb.EAGLE
ALL, SWAPPED = gf.ALL, gf.SWAPPED


def _translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


def _windowed_read(pool, layer, forward_batch):
    """A kernel over ``pool``: its K buffer, write ids translated on an SWA pool."""
    return bb._read_kv(pool, layer, forward_batch, _translate(pool))


def _dense_kernel(pool, layer, forward_batch):
    """A launch over a pool with one index space: ids as they are."""
    return bb._read_kv(pool, layer, forward_batch)


def _split_kernel(pool, layer, forward_batch):
    """A launch over an SWA pool: ids translated to its SWA index space."""
    return bb._read_kv(pool, layer, forward_batch, pool.translate_loc_from_full_to_swa)


_KERNELS = {bb.SWAKVPool: _split_kernel, MHATokenToKVPool: _dense_kernel}
_LAUNCH_DEFAULTS = {"windowed": False, "num_splits": 1}

_Base11 = gf.KeepsPool


# =========================================================================== stale


class PoolClassKeyAttnBackend(_Base11):
    """Keeps ``type(pool)``, decided once, as the key into a class-keyed kernel table: the
    draft's own ``MHATokenToKVPool`` picks the dense kernel, which then runs on the target's
    SWA pool with full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_pool_class"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pool_class = type(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _KERNELS[self._pool_class](self.token_to_kv_pool, layer, forward_batch)
        return q


class SwaSlotCountAttnBackend(_Base11):
    """The SWA index space's size as a ``numpy.int64`` (``pool.size_swa``, 0 without an SWA
    pool), kept to size SWA ids and tested per launch: 0 for the draft's own pool, so the
    target's SWA layers get full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_swa_slots"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self._swa_slots = np.int64(pool.size_swa if _is_swa(pool) else 0)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        translate = pool.translate_loc_from_full_to_swa if self._swa_slots > 0 else None
        bb._read_kv(pool, layer, forward_batch, translate)
        return q


class RepeatedPoolAttnBackend(_Base11):
    """The init-time pool inside an ``itertools.repeat`` iterator, drawn with ``next`` per
    launch (an iterator shows no attribute holding it)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_pools"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pools = itertools.repeat(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(next(self._pools), layer, forward_batch)
        return q


class _StepBackend(gf.KeepsPool):
    """One draft step's backend: reads the pool it was built with."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        return q


class CycledStepsAttnBackend(_Base11):
    """One inner backend per draft step, rotated with ``itertools.cycle``: the swap rebinds the
    wrapper's ``token_to_kv_pool`` only, each step's backend reads the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_steps"

    def __init__(self, model_runner, num_steps: int = 2):
        super().__init__(model_runner)
        self._steps = itertools.cycle([_StepBackend(model_runner) for _ in range(num_steps)])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return next(self._steps).forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class DefaultFactoryPoolAttnBackend(_Base11):
    """Per-layer pools in a ``defaultdict`` whose default factory closes over the init-time
    pool: empty until the first launch fills it from the factory."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_layer_pools"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self._layer_pools = collections.defaultdict(lambda: pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _windowed_read(self._layer_pools[layer.layer_id], layer, forward_batch)
        return q


class FunctionAttributePoolAttnBackend(_Base11):
    """A kernel function made in ``__init__`` that finds its pool on itself (``kernel.kv_pool``,
    a function attribute: neither a closure cell of the pool nor a default)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_kernel"

    def __init__(self, model_runner):
        super().__init__(model_runner)

        def kernel(layer, forward_batch):
            return _windowed_read(kernel.kv_pool, layer, forward_batch)

        kernel.kv_pool = model_runner.token_to_kv_pool
        self._kernel = kernel

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._kernel(layer, forward_batch)
        return q


class WeakMethodReaderAttnBackend(_Base11):
    """A ``weakref.WeakMethod`` of the init-time pool's ``get_key_buffer`` (the runner keeps
    the pool alive), dereferenced per launch: the K buffer of the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_key_reader"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._key_reader = weakref.WeakMethod(model_runner.token_to_kv_pool.get_key_buffer)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._key_reader()(layer.layer_id)
        translate = _translate(self.token_to_kv_pool)
        if translate is not None:
            translate(forward_batch.out_cache_loc)
        return q


class GraphStateVerdictAttnBackend(_Base11):
    """``init_cuda_graph_state`` (run once after construction, outside any forward's swap)
    decides ``graph_windowed`` from the pool then active; every launch reads it."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "graph_windowed"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.init_cuda_graph_state(max_bs=8, max_num_tokens=8)  # as a graph runner does first

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int):
        self.graph_out_cache_loc = torch.zeros(max_num_tokens, dtype=torch.int64)
        self.graph_windowed = _is_swa(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        translate = pool.translate_loc_from_full_to_swa if self.graph_windowed else None
        bb._read_kv(pool, layer, forward_batch, translate)
        return q


class TensorVerdictAttnBackend(_Base11):
    """The SWA verdict as a 0-d bool tensor (``torch.tensor(isinstance(pool, SWAKVPool))``, the
    way a kernel argument wants it): False for the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_windowed_mask"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._windowed_mask = torch.tensor(_is_swa(model_runner.token_to_kv_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        translate = pool.translate_loc_from_full_to_swa if bool(self._windowed_mask) else None
        bb._read_kv(pool, layer, forward_batch, translate)
        return q


class ChainMapVerdictAttnBackend(_Base11):
    """Launch options in a ``collections.ChainMap``: a first layer decided in ``__init__``
    (``windowed`` from the pool's type) over module defaults."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "launch_options"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        decided = {"windowed": _is_swa(model_runner.token_to_kv_pool)}
        self.launch_options = collections.ChainMap(decided, _LAUNCH_DEFAULTS)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.launch_options["windowed"]
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if windowed else None)
        return q


def _reader_over(pool):
    def read(backend, layer, forward_batch):
        return _windowed_read(pool, layer, forward_batch)

    return read


class BoundPoolClosureAttnBackend(_Base11):
    """A closure over the init-time pool bound to the backend with ``types.MethodType``: the
    bound method's ``__self__`` is the backend, the pool is in its function's closure."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_read_pages"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._read_pages = types.MethodType(_reader_over(model_runner.token_to_kv_pool), self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._read_pages(layer, forward_batch)
        return q


class CachedResolverAttnBackend(_Base11):
    """The SWA pool resolved through the allocator without the draft check, in a
    ``functools.cached_property`` resolved at build: an EAGLE draft owning a full pool gets the
    target's SWA pool and translates its own full-pool ids with that pool's mapping."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (EAGLE,), "window_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._allocator = model_runner.token_to_kv_pool_allocator
        self.window_pool  # resolved once, at build

    @functools.cached_property
    def window_pool(self):
        active = self.token_to_kv_pool
        return active if _is_swa(active) else bb._swa_or_none(self._allocator.get_kvcache())

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self.window_pool
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


# =========================================================================== correct


class PoolClassTableAttnBackend(_Base11):
    """Keeps the class-keyed kernel table itself (pool classes to kernels: no verdict) and
    looks it up with the live pool's type on every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._kernels = dict(_KERNELS)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        self._kernels[type(pool)](pool, layer, forward_batch)
        return q


class WindowGeometryArraysAttnBackend(_Base11):
    """Model geometry as a tensor and a ``numpy`` int (the window size, the pages a window
    spans): the same for a draft and its target. SWA is decided from the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._window = torch.tensor(bb.WINDOW)
        self._window_pages = np.int64(-(-bb.WINDOW // model_runner.page_size))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        forward_batch.seq_lens.clamp(max=int(self._window))
        _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        return q


class LiveGetattrAttnBackend(_Base11):
    """``__getattr__`` delegates ``kv_*`` names to the live pool (``self.kv_get_key_buffer`` is
    ``self.token_to_kv_pool.get_key_buffer`` when read): nothing kept."""

    EXPECT, CONFIGS = "correct", ALL

    def __getattr__(self, name):
        if name.startswith("kv_") and "token_to_kv_pool" in vars(self):
            return getattr(self.token_to_kv_pool, name[len("kv_"):])
        raise AttributeError(name)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv_get_key_buffer(layer.layer_id)
        if _is_swa(self.token_to_kv_pool):
            self.kv_translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return q


class GraphStatePerForwardAttnBackend(GraphStateVerdictAttnBackend):
    """The same CUDA-graph state, its verdict decided again from the live pool before every
    launch (``init_forward_metadata`` runs under the swap)."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.graph_windowed = _is_swa(self.token_to_kv_pool)


class DefaultFactoryWorkspaceAttnBackend(_Base11):
    """Per-layer index workspaces in a ``defaultdict`` whose factory makes a zeroed buffer of
    the page size (geometry, no pool); the pool is read live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        page = model_runner.page_size
        self._workspaces = collections.defaultdict(lambda: torch.zeros(page, dtype=torch.int64))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._workspaces[layer.layer_id].zero_()
        _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        return q


def _live_reader(window: int):
    def read(backend, layer, forward_batch):
        forward_batch.seq_lens.clamp(max=window)
        return _windowed_read(backend.token_to_kv_pool, layer, forward_batch)

    return read


class BoundLiveClosureAttnBackend(_Base11):
    """A closure over the window size bound to the backend with ``types.MethodType``: it reads
    the backend's live pool when called."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._read_pages = types.MethodType(_live_reader(bb.WINDOW), self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._read_pages(layer, forward_batch)
        return q


# ------------------------------------------- correct, written after the guard's fix (not blind)


class PoolClassToolAttnBackend(_Base11):
    """Keeps SGLang's ``SWAKVPool`` class (a tool: no pool's type) for the ``isinstance`` test
    it runs on the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._window_pool_class = bb.SWAKVPool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = isinstance(pool, self._window_pool_class)
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if windowed else None)
        return q


class TensorVerdictPerForwardAttnBackend(TensorVerdictAttnBackend):
    """The same 0-d verdict tensor, written in place from the live pool before every launch,
    beside a kernel function whose own attribute is geometry (the page size)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)

        def kernel(layer, forward_batch):
            return _windowed_read(self.token_to_kv_pool, layer, forward_batch)

        kernel.page_size = model_runner.page_size
        self._kernel = kernel

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self._windowed_mask.fill_(_is_swa(self.token_to_kv_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        super().forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        self._kernel(layer, forward_batch)
        return q


class RepeatedAllocatorAttnBackend(_Base11):
    """The allocator (shared by target and drafts, never swapped) in an ``itertools.repeat``,
    a ``defaultdict(list)`` of per-layer notes and an iterator over layer ids: no pool held."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._allocators = itertools.repeat(model_runner.token_to_kv_pool_allocator)
        self._notes = collections.defaultdict(list)
        self._layer_ids = iter(range(64))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._notes[layer.layer_id].append(next(self._allocators).page_size)
        _windowed_read(self.token_to_kv_pool, layer, forward_batch)
        return q


STALE = (
    PoolClassKeyAttnBackend, SwaSlotCountAttnBackend, RepeatedPoolAttnBackend,
    CycledStepsAttnBackend, DefaultFactoryPoolAttnBackend, FunctionAttributePoolAttnBackend,
    WeakMethodReaderAttnBackend, GraphStateVerdictAttnBackend, TensorVerdictAttnBackend,
    ChainMapVerdictAttnBackend, BoundPoolClosureAttnBackend, CachedResolverAttnBackend,
)
CORRECT = (
    PoolClassTableAttnBackend, WindowGeometryArraysAttnBackend, LiveGetattrAttnBackend,
    GraphStatePerForwardAttnBackend, DefaultFactoryWorkspaceAttnBackend,
    BoundLiveClosureAttnBackend, PoolClassToolAttnBackend, TensorVerdictPerForwardAttnBackend,
    RepeatedAllocatorAttnBackend,
)
