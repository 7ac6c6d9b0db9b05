"""Backends no table of the guard names, written blind from the bug class by guard16 (the
guard's implementation unread while they were written): stale SWA state kept in Python shapes
the earlier sets do not use (stage lists, slotted dataclasses, callback tables of lambdas, weak
value dictionaries, ``array`` copies of the layer map, ``functools.cached_property`` on a
helper, attributes forced onto frozen dataclasses, state machines, classes made at
construction with ``type()``, tensor views, int counts, per-layer tuples), each with a twin.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses): each
class is built from the runner alone and launched by one decode under SGLang's own per-forward
swap for the FROZEN_KV drafts; ``EXPECT``, ``CONFIGS``, ``STALE_STATE`` as there.

Stale forms: a list of pipeline stages whose gather stage keeps the init-time pool
(``stages[1].kv_pool``); a ``dataclass(slots=True)`` record (no ``__dict__``) holding the
window sub-pool; a dict of callback lambdas, one closing over the init-time pool; a
``weakref.WeakValueDictionary`` holding the window sub-pool; an ``array('b')`` of per-layer
window flags copied from the shared allocator's layer map by an EAGLE draft owning a full pool;
a layout helper whose ``functools.cached_property`` froze the pool it read when ``__init__``
first touched it; a frozen dataclass plan given an undeclared ``_swa_map`` through
``object.__setattr__`` in ``__post_init__``; a decode state machine whose states carry the
init-time pool from one forward to the next (the state object is replaced every forward, the
pool never); a bound ``get_key_buffer`` of the window sub-pool stored as a class attribute of a
subclass made with ``type()`` in ``__new__``; a tensor view (``mapping[:-1]``) of the own SWA
pool's full->SWA map; an int count of window layers used as a verdict; a per-layer tuple of
``(is_window, translate)`` pairs.

Correct twins: stages reading the pool through a getter over the backend; the slotted record
rebuilt by each metadata build; callback lambdas over the backend; the weak dictionary
validated by identity against the live pool in each metadata build; a cached_property of
geometry only; a frozen plan whose forced attribute is geometry; a state machine handed the
live pool on every transition; the window flag array copied from upstream's resolver.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from array import array
from typing import Callable, Optional

import guard_forms as gf
import torch
from guard_forms import is_swa as _is_swa

bb = gf.bb
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
ALL, SWAPPED, OWN_SWA_DRAFT = gf.ALL, gf.SWAPPED, gf.OWN_SWA_DRAFT
WINDOW = bb.WINDOW


# =========================================================================== helpers


def _read(pool, layer, forward_batch, translate=None):
    return bb._read_kv(pool, layer, forward_batch, translate)


def _window_pool_of(pool):
    """The pool a window layer's K lives in: the SWA sub-pool, or the whole pool of a model
    without one."""
    return pool.swa_kv_pool if _is_swa(pool) else pool


def _read_through(window_pool, live, layer, forward_batch):
    """An SWA layer's K read from ``window_pool`` (sub-pool layer index) with the ids
    translated through the live pool; any other layer read from the live pool."""
    if _is_swa(live):
        sub_layer, is_window = live.layers_mapping[layer.layer_id]
        if is_window and window_pool is not None:
            window_pool.get_key_buffer(sub_layer)
            return live.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
    return _read(live, layer, forward_batch)


# =========================================================================== stale


class _PlanStage:
    """Stage 0: batch geometry (no pool)."""

    def __init__(self, page_size: int):
        self.page_size = page_size

    def run(self, forward_batch):
        return -(-int(forward_batch.seq_lens.max()) // self.page_size)


class _GatherStage:
    """Stage 1: gathers K pages of the pool it was made with."""

    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def run(self, layer, loc):
        return self.kv_pool.get_key_buffer(layer.layer_id), loc


class _ScoreStage:
    """Stage 2: scaling only."""

    def __init__(self, scale: float):
        self.scale = scale


class StagePipelineAttnBackend(gf.KeepsPool):
    """The decode is a list of stage objects built once (``stages``); the gather stage keeps the
    init-time pool (``stages[1].kv_pool``): the draft's own pool, or its own SWA pool, gathered
    while the swap makes the target's SWA pool the one the launch should read."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "stages[1].kv_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.stages = [_PlanStage(self.page_size), _GatherStage(model_runner.token_to_kv_pool),
                       _ScoreStage(1.0)]

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.forward_metadata.num_pages = self.stages[0].run(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.stages[1].run(layer, forward_batch.out_cache_loc)
        return q


@dataclasses.dataclass(slots=True)
class WindowKV:
    """A slotted record (no ``__dict__``) of the window side of the cache."""

    window_pool: Optional[object]
    window: int = WINDOW
    page_size: int = 1


class SlotsRecordAttnBackend(gf.KeepsPool):
    """A ``dataclass(slots=True)`` record built once holds the init-time window sub-pool
    (``kv_rec.window_pool``): None for the draft's own full pool (the target's SWA layers read
    untranslated), the own SWA pool's sub-pool for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv_rec.window_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.kv_rec = WindowKV(pool.swa_kv_pool if _is_swa(pool) else None,
                               page_size=self.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        window_pool = self.kv_rec.window_pool
        live = self.token_to_kv_pool
        if window_pool is None:
            _read(live, layer, forward_batch)
        else:
            _read_through(window_pool, live, layer, forward_batch)
        return q


class CallbackTableAttnBackend(gf.KeepsPool):
    """A dict of callbacks (``callbacks``) filled with lambdas in ``__init__``; the ``kv_ids``
    lambda closes over the init-time pool (``pool``): it leaves ids untranslated for the draft's
    own full pool, translates through the own SWA pool's map for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "callbacks['kv_ids'].pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.callbacks = {
            "on_plan": lambda fb: fb.batch_size,
            "kv_ids": lambda loc: (pool.translate_loc_from_full_to_swa(loc)
                                   if isinstance(pool, bb.SWAKVPool) else loc),
        }

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.callbacks["on_plan"](forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        self.callbacks["kv_ids"](forward_batch.out_cache_loc)
        return q


class WeakValuePoolsAttnBackend(gf.KeepsPool):
    """The window pool kept in a ``weakref.WeakValueDictionary`` (so the backend does not keep
    a pool alive): ``_pools['window']`` is the init-time pool's window side (the draft's own
    pool, or its own SWA sub-pool), read for the target's SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_pools['window']"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pools = weakref.WeakValueDictionary()
        self._pools["window"] = _window_pool_of(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_through(self._pools.get("window"), self.token_to_kv_pool, layer, forward_batch)
        return q


class AllocatorLayerArrayAttnBackend(gf.KeepsPool):
    """Per-layer window flags copied into an ``array('b')`` (``window_layers``) from the layer
    map of the shared allocator's pool, over the backend's own layers: an EAGLE draft owning a
    full pool marks its layer 0 windowed and translates its own full-pool ids through the
    target's map."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (EAGLE,), "window_layers"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        kvcache = self.token_to_kv_pool_allocator.get_kvcache()
        layout = kvcache.layers_mapping if _is_swa(kvcache) else {}
        own_layers = model_runner.token_to_kv_pool.layer_num
        self.window_layers = array("b", (int(layout.get(i, (i, False))[1])
                                         for i in range(own_layers)))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        loc = forward_batch.out_cache_loc
        if self.window_layers[layer.layer_id]:
            loc = self.token_to_kv_pool_allocator.get_kvcache().translate_loc_from_full_to_swa(loc)
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return q


class _KVLayout:
    """Layout facts about the backend's cache, each computed on first use and cached."""

    def __init__(self, owner):
        self.owner = owner

    @functools.cached_property
    def head_dim(self) -> int:
        return self.owner.token_to_kv_pool.head_dim

    @functools.cached_property
    def window_pool(self):
        return _window_pool_of(self.owner.token_to_kv_pool)


class CachedLayoutAttnBackend(gf.KeepsPool):
    """A layout helper over the backend whose ``functools.cached_property`` values are filled
    when ``__init__`` sizes its workspace (``layout.window_pool`` is cached then, from the
    init-time pool) and never again: the swapped-in target pool's SWA layers are read from the
    draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "layout.window_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.layout = _KVLayout(self)
        self.workspace = torch.empty(8, self.layout.head_dim, dtype=torch.float32)
        assert self.layout.window_pool is not None  # warmed with the rest of the layout

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_through(self.layout.window_pool, self.token_to_kv_pool, layer, forward_batch)
        return q


@dataclasses.dataclass(frozen=True)
class DecodePlan:
    """A frozen plan; ``__post_init__`` attaches the full->SWA map of ``source`` (an InitVar)
    as an undeclared attribute with ``object.__setattr__``."""

    page_size: int
    head_dim: int
    source: dataclasses.InitVar[object] = None

    def __post_init__(self, source):
        object.__setattr__(self, "_swa_map",
                           source.full_to_swa_index_mapping if _is_swa(source) else None)


class ForcedPlanAttnBackend(gf.KeepsPool):
    """A frozen dataclass plan with the init-time pool's full->SWA map forced onto it
    (``plan._swa_map``, no field of the dataclass): None for the draft's own full pool, the
    own SWA pool's map for a draft owning one; the launch reads the target's SWA pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "plan._swa_map"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.plan = DecodePlan(self.page_size, pool.head_dim, source=pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        swa_map = self.plan._swa_map
        loc = forward_batch.out_cache_loc
        _ = swa_map[loc] if swa_map is not None else loc
        return q


class _DecodeState:
    """A state of the decode state machine; ``next`` makes the following state."""

    def __init__(self, pool, step: int = 0):
        self.pool = pool
        self.step = step

    def next(self, forward_batch) -> "_DecodeState":
        return _Planned(self.pool, self.step + 1)


class _Planned(_DecodeState):
    """Metadata built; the launch reads the state's pool."""

    def launch(self, layer, forward_batch):
        pool = self.pool
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if _is_swa(pool) else None)


class _DecodeFSM:
    def __init__(self, state: _DecodeState):
        self.state = state

    def advance(self, forward_batch):
        self.state = self.state.next(forward_batch)


class StateMachineCarryAttnBackend(gf.KeepsPool):
    """A decode state machine (``fsm``): each metadata build replaces ``fsm.state`` with a new
    state object, but the pool is carried over from the initial state made in ``__init__``
    (``fsm.state.pool``: the draft's own pool, or its own SWA pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "fsm.state.pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.fsm = _DecodeFSM(_DecodeState(model_runner.token_to_kv_pool))

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.fsm.advance(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.fsm.state.launch(layer, forward_batch)
        return q


class RuntimeSubclassAttnBackend(gf.KeepsPool):
    """``__new__`` specialises the class per runner with ``type()``: the made subclass (same
    name) carries the init-time window pool's bound ``get_key_buffer`` as a class attribute
    (``_window_key``): the draft's own pool's, or its own SWA sub-pool's, used for the target's
    SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_window_key"
    _window_key: Optional[Callable] = None

    def __new__(cls, model_runner, *args, **kwargs):
        reader = _window_pool_of(model_runner.token_to_kv_pool).get_key_buffer
        special = type(cls.__name__, (cls,), {
            "_window_key": reader, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        })
        return super().__new__(special)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        if _is_swa(live):
            sub_layer, is_window = live.layers_mapping[layer.layer_id]
            if is_window:
                self._window_key(sub_layer)
                live.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
                return q
        _read(live, layer, forward_batch)
        return q


class MappingViewAttnBackend(gf.KeepsPool):
    """A hybrid draft owning an SWA pool keeps a view of that pool's full->SWA map without the
    trailing -1 sentinel (``swa_slots = mapping[:-1]``): not the mapping object, but its
    storage; the launch reads the target's SWA pool, whose map is another tensor."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "swa_slots"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_slots = model_runner.token_to_kv_pool.full_to_swa_index_mapping[:-1]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        _ = self.swa_slots[forward_batch.out_cache_loc]
        return q


class WindowLayerCountAttnBackend(gf.KeepsPool):
    """The number of window layers of the init-time pool kept as an int
    (``num_window_layers``) and used as the verdict: 0 for the draft's own full pool, so the
    target's SWA layers get full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "num_window_layers"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.num_window_layers = pool.swa_layer_nums if _is_swa(pool) else 0

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if self.num_window_layers else None)
        return q


class LayerPairsAttnBackend(gf.KeepsPool):
    """A per-layer tuple of ``(is_window, translate)`` pairs built from the init-time pool
    (``layer_plan``): ``(False, None)`` for layer 0 of the draft's own full pool, the own SWA
    pool's bound translate for a draft owning one; layer 0 of the target is a window layer."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "layer_plan[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        if _is_swa(pool):
            layout = pool.layers_mapping
            self.layer_plan = tuple(
                (layout[i][1], pool.translate_loc_from_full_to_swa if layout[i][1] else None)
                for i in sorted(layout))
        else:
            self.layer_plan = tuple((False, None) for _ in range(pool.layer_num))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        is_window, translate = self.layer_plan[layer.layer_id]
        _read(self.token_to_kv_pool, layer, forward_batch, translate if is_window else None)
        return q


# =========================================================================== correct


class _LiveGatherStage:
    """A gather stage reading the pool through a getter each call."""

    def __init__(self, get_pool: Callable[[], object]):
        self.get_pool = get_pool

    def run(self, layer, loc):
        pool = self.get_pool()
        return pool.get_key_buffer(layer.layer_id), (
            pool.translate_loc_from_full_to_swa(loc) if _is_swa(pool) else loc)


class LiveStagePipelineAttnBackend(gf.KeepsPool):
    """The stage list of StagePipeline, its gather stage handed a getter over the backend's
    ``token_to_kv_pool`` (a lambda closing over the backend): it reads the swapped pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.stages = [_PlanStage(self.page_size),
                       _LiveGatherStage(lambda: self.token_to_kv_pool), _ScoreStage(1.0)]

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.forward_metadata.num_pages = self.stages[0].run(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.stages[1].run(layer, forward_batch.out_cache_loc)
        return q


class SlotsRecordPerForwardAttnBackend(gf.KeepsPool):
    """The slotted record of SlotsRecord, built in ``__init__`` and rebuilt from the live pool
    by every metadata build (under the swap)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rebuild()

    def _rebuild(self):
        pool = self.token_to_kv_pool
        self.kv_rec = WindowKV(pool.swa_kv_pool if _is_swa(pool) else None,
                               page_size=self.page_size)

    def init_forward_metadata(self, forward_batch):
        self._rebuild()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        window_pool = self.kv_rec.window_pool
        live = self.token_to_kv_pool
        if window_pool is None:
            _read(live, layer, forward_batch)
        else:
            _read_through(window_pool, live, layer, forward_batch)
        return q


class LiveCallbackTableAttnBackend(gf.KeepsPool):
    """The callback table of CallbackTable, its ``kv_ids`` lambda closing over the backend and
    reading its live pool per call."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.callbacks = {
            "on_plan": lambda fb: fb.batch_size,
            "kv_ids": lambda loc: (
                self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
                if isinstance(self.token_to_kv_pool, bb.SWAKVPool) else loc),
        }

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.callbacks["on_plan"](forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        self.callbacks["kv_ids"](forward_batch.out_cache_loc)
        return q


class ValidatedWeakPoolsAttnBackend(gf.KeepsPool):
    """The weak dictionary of WeakValuePools plus the pool it was filled from
    (``_pools['source']``); each metadata build (under the swap) compares that entry with the
    live pool by identity and refills the dictionary when they differ."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pools = weakref.WeakValueDictionary()
        self._pools["source"] = model_runner.token_to_kv_pool
        self._pools["window"] = _window_pool_of(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_through(self._pools.get("window"), self.token_to_kv_pool, layer, forward_batch)
        return q

    def init_forward_metadata(self, forward_batch):
        live = self.token_to_kv_pool
        if self._pools.get("source") is not live:
            self._pools["source"] = live
            self._pools["window"] = _window_pool_of(live)
        super().init_forward_metadata(forward_batch)


class _GeometryLayout:
    """Geometry of the cache, cached on first use (the same for every pool of the model)."""

    def __init__(self, owner, window: int):
        self.owner = owner
        self.window = window

    @functools.cached_property
    def head_dim(self) -> int:
        return self.owner.token_to_kv_pool.head_dim

    @functools.cached_property
    def window_pages(self) -> int:
        return -(-self.window // self.owner.page_size)


class CachedGeometryLayoutAttnBackend(gf.KeepsPool):
    """A layout helper whose cached properties (warmed in ``__init__``) are geometry only; the
    window sub-pool is taken from the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.layout = _GeometryLayout(self, WINDOW)
        self.workspace = torch.empty(self.layout.window_pages, self.layout.head_dim)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        _read_through(live.swa_kv_pool if _is_swa(live) else None, live, layer, forward_batch)
        return q


@dataclasses.dataclass(frozen=True)
class GeometryPlan:
    """A frozen plan; ``__post_init__`` forces the window's page count onto it."""

    page_size: int
    head_dim: int
    window: int = WINDOW

    def __post_init__(self):
        object.__setattr__(self, "_window_pages", -(-self.window // self.page_size))


class ForcedGeometryPlanAttnBackend(gf.KeepsPool):
    """The frozen plan with a forced attribute, but the attribute is geometry (window pages);
    the full->SWA map is read off the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.plan = GeometryPlan(self.page_size, model_runner.token_to_kv_pool.head_dim)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        assert self.plan._window_pages > 0
        pool = self.token_to_kv_pool
        pool.get_key_buffer(layer.layer_id)
        swa_map = pool.full_to_swa_index_mapping if _is_swa(pool) else None
        loc = forward_batch.out_cache_loc
        _ = swa_map[loc] if swa_map is not None else loc
        return q


class _LiveDecodeFSM(_DecodeFSM):
    def advance(self, forward_batch, pool):
        self.state = _Planned(pool, self.state.step + 1)


class LiveStateMachineAttnBackend(gf.KeepsPool):
    """The state machine of StateMachineCarry, handed the backend's live pool on every
    transition (in the metadata build, under the swap): the launch state holds the active pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.fsm = _LiveDecodeFSM(_DecodeState(model_runner.token_to_kv_pool))

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.fsm.advance(forward_batch, self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.fsm.state.launch(layer, forward_batch)
        return q


class ResolvedLayerArrayAttnBackend(gf.KeepsPool):
    """Window flags in an ``array('b')`` copied from the layer map of the pool upstream's
    resolver returns (the target's for a FROZEN_KV draft, none for an EAGLE draft), and ids
    translated through that resolved pool (not meant for a draft owning an SWA pool of its own:
    the resolver returns that pool, which the swap leaves stale)."""

    EXPECT, CONFIGS = "correct", bb.ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._swa_kv_pool = bb.resolve_swa_kv_pool(model_runner)
        layout = self._swa_kv_pool.layers_mapping if self._swa_kv_pool is not None else {}
        self.window_layers = array("b", (int(layout[i][1]) for i in sorted(layout)))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        lid = layer.layer_id
        windowed = lid < len(self.window_layers) and self.window_layers[lid]
        _read(self.token_to_kv_pool, layer, forward_batch,
              self._swa_kv_pool.translate_loc_from_full_to_swa if windowed else None)
        return q


STALE = (
    StagePipelineAttnBackend, SlotsRecordAttnBackend, CallbackTableAttnBackend,
    WeakValuePoolsAttnBackend, AllocatorLayerArrayAttnBackend, CachedLayoutAttnBackend,
    ForcedPlanAttnBackend, StateMachineCarryAttnBackend, RuntimeSubclassAttnBackend,
    MappingViewAttnBackend, WindowLayerCountAttnBackend, LayerPairsAttnBackend,
)
CORRECT = (
    LiveStagePipelineAttnBackend, SlotsRecordPerForwardAttnBackend, LiveCallbackTableAttnBackend,
    ValidatedWeakPoolsAttnBackend, CachedGeometryLayoutAttnBackend, ForcedGeometryPlanAttnBackend,
    LiveStateMachineAttnBackend, ResolvedLayerArrayAttnBackend,
)
