"""Backends no table of the guard names, written blind from the bug class by guard15 (the guard's
implementation and tests unread while they were written), the way backend authors of 2027 might
write a new backend: SWA state kept in places the earlier sets do not use (factory-built
per-layer objects, ``torch.nn.Module`` helpers, enum dispatch tables, preallocated index
buffers, delegating proxies, layer counts, keyword-bound partials, per-layer tuples, contexts
shared through a registry, suspended generators, helper-class attributes), each stale form with
a look-alike that stays right.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses): each
class is built from the runner alone and launched by one decode under SGLang's own per-forward
swap for the FROZEN_KV drafts; ``EXPECT``, ``CONFIGS``, ``STALE_STATE`` as there. Every stale
class carries a ``# stale in <config>:`` comment saying what it holds against what the launch
reads; ``test_guard_forms15_material`` asserts each of those comments on real pools.

Stale forms: a list of per-layer KV handles built by a factory function, each holding the
init-time pool's sub-pool for its layer (``layer_kv[0].pool``); an ``nn.Module`` helper whose
submodule keeps the window sub-pool as a plain attribute (``kv_reader.window.kv_pool``); an
``nn.Module`` helper with the own SWA pool's full->SWA map registered as a non-persistent buffer
(``slot_index.full_to_swa``); a ``str`` enum layout chosen at init and dispatched through
``getattr(self, f"_decode_{layout.value}")`` (``kv_layout``); a preallocated slot buffer filled at
init by ``index_select`` from the init-time pool's map, or with identity ids for a pool without
one (``swa_slot_buf``); a ``__slots__`` proxy whose ``__getattr__`` delegates to the init-time
pool (``kv._pool``); the verdict as an ``int`` count of window layers (``num_window_layers``); a
``functools.partial`` of the backend's own gather binding the window sub-pool's
``get_key_buffer`` as a keyword (``_gather_window``); a dict ``layer_id -> (sub-pool, sub-layer)``
(``layer_slots[0]``); a KV context shared by every backend over one allocator through a
weak-keyed registry, made by the first from its pool (``kv_ctx.kv_pool``); a primed generator
whose suspended frame holds the init-time pool and serves key buffers by ``send``
(``_key_reader``); the pool set as a class attribute of a metadata-builder helper class, read
through the backend's builder instance (``meta_builder.kv_pool``).

Correct twins: per-layer handles from a factory holding geometry only and handed the live pool;
an ``nn.Module`` helper with geometry buffers and a submodule handed the live key buffer; the
enum layout chosen again from the live pool by each metadata build; a ``__slots__`` proxy
delegating to its owner's live ``token_to_kv_pool``; the preallocated slot buffer refilled in
place from the live pool by each metadata build; the per-layer tuple dict validated by identity
against the live pool (rebuilt when it is not the source); a shared context holding the
allocator and geometry only; a primed generator whose frame holds the backend and reads its
live pool on every ``send``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import weakref
from types import SimpleNamespace

import guard_forms as gf
import torch
from guard_forms import is_swa as _is_swa
from torch import nn

bb = gf.bb
FROZEN_KV, EAGLE, NON_SWA, TARGET = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA, gf.TARGET
ALL, SWAPPED, OWN_SWA_DRAFT = gf.ALL, gf.SWAPPED, gf.OWN_SWA_DRAFT


# =========================================================================== helpers


def _read(pool, layer, forward_batch, translate=None):
    return bb._read_kv(pool, layer, forward_batch, translate)


def _window_layer(live, layer_id: int):
    """``(sub_layer, is_window)`` of ``layer_id`` in the live pool (a plain pool: no window)."""
    if _is_swa(live):
        return live.layers_mapping[layer_id]
    return layer_id, False


def _window_pool_of(pool):
    """The pool window layers read: the SWA sub-pool, or the whole pool of a model without one."""
    return pool.swa_kv_pool if _is_swa(pool) else pool


def _identity_slots(n: int) -> torch.Tensor:
    return torch.arange(n, dtype=torch.int64)


# =========================================================================== stale


class _LayerKV:
    """One layer's KV handle: the (sub-)pool holding the layer and its index there."""

    def __init__(self, pool, sub_layer: int):
        self.pool = pool
        self.sub_layer = sub_layer

    def keys(self):
        return self.pool.get_key_buffer(self.sub_layer)


def make_layer_kv(pool, layer_id: int) -> _LayerKV:
    """The factory the backend builds its per-layer handles with."""
    if _is_swa(pool):
        sub_layer, is_window = pool.layers_mapping[layer_id]
        return _LayerKV(pool.swa_kv_pool if is_window else pool.full_kv_pool, sub_layer)
    return _LayerKV(pool, layer_id)


class FactoryLayerListAttnBackend(gf.KeepsPool):
    """Per-layer KV handles built once by a factory (``layer_kv[i]``), each keeping the
    init-time pool's sub-pool for its layer; the ids are translated through the live pool, but
    the keys come from the handle's pool: the draft's own pool (or its own SWA sub-pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "layer_kv[0].pool"

    # stale in FROZEN_KV draft: layer_kv[0].pool is the draft's own MHATokenToKVPool, while the
    # launch reads run.active (the target's SWAKVPool), whose layer 0 lives in
    # run.active.swa_kv_pool; in the own-SWA draft it is the own pool's swa_kv_pool, not the
    # target's.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.layer_kv = [make_layer_kv(pool, i) for i in range(pool.layer_num)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        self.layer_kv[layer.layer_id].keys()
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        return q


class _WindowGather(nn.Module):
    """Gathers window-layer keys from the pool it was made with (a plain attribute)."""

    def __init__(self, window_pool):
        super().__init__()
        self.kv_pool = window_pool

    def forward(self, sub_layer: int, ids: torch.Tensor) -> torch.Tensor:
        return self.kv_pool.get_key_buffer(sub_layer)[ids]


class _KVReader(nn.Module):
    """The backend's reader module: a window-gather submodule and a geometry buffer."""

    def __init__(self, window_pool, head_dim: int):
        super().__init__()
        self.window = _WindowGather(window_pool)
        self.register_buffer("k_scale", torch.ones(head_dim), persistent=False)


class ModuleSubmoduleAttnBackend(gf.KeepsPool):
    """An ``nn.Module`` reader whose submodule (``kv_reader.window``) keeps the init-time
    window pool as a plain attribute (the SWA sub-pool, or the whole pool of a model without
    one): window layers of the live pool are gathered from the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv_reader.window.kv_pool"

    # stale in FROZEN_KV draft: kv_reader.window.kv_pool is the draft's own MHATokenToKVPool,
    # not run.active.swa_kv_pool, which holds the target's window layer 0 the launch gathers.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.kv_reader = _KVReader(_window_pool_of(pool), pool.head_dim)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        sub_layer, is_window = _window_layer(live, layer.layer_id)
        if is_window:
            self.kv_reader.window(sub_layer, live.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc))
        else:
            _read(live, layer, forward_batch)
        return q


class _SlotIndex(nn.Module):
    """Full->SWA slot lookup as a module: the map registered as a (non-persistent) buffer."""

    def __init__(self, full_to_swa):
        super().__init__()
        self.register_buffer("full_to_swa", full_to_swa, persistent=False)

    def forward(self, loc: torch.Tensor) -> torch.Tensor:
        return self.full_to_swa[loc] if self.full_to_swa is not None else loc


class ModuleBufferSlotsAttnBackend(gf.KeepsPool):
    """A draft owning an SWA pool registers that pool's full->SWA map as a buffer of an
    ``nn.Module`` helper (``slot_index.full_to_swa``); the launch reads the target's SWA pool,
    whose map is another tensor (filled by the target's allocator)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "slot_index.full_to_swa"

    # stale in FROZEN_KV draft, own SWA pool: slot_index.full_to_swa is
    # run.runner.token_to_kv_pool.full_to_swa_index_mapping (the own allocator's map), not
    # run.active.full_to_swa_index_mapping (the same object, checked with `is`, is False).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.slot_index = _SlotIndex(pool.full_to_swa_index_mapping if _is_swa(pool) else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        live.get_key_buffer(layer.layer_id)
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = self.slot_index(loc) if is_window else loc
        return q


class KVLayout(str, enum.Enum):
    """How the decode kernel addresses the KV cache."""

    DENSE = "dense"
    WINDOWED = "windowed"


class LayoutEnumDispatchAttnBackend(gf.KeepsPool):
    """A ``str`` enum layout chosen once from the init-time pool (``kv_layout``) and
    dispatched through ``getattr(self, f"_decode_{layout.value}")``: dense for the draft's own
    full pool, so the target's SWA layers are read with full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kv_layout"

    # stale in FROZEN_KV draft: kv_layout is KVLayout.DENSE (decided from the draft's own
    # MHATokenToKVPool), while run.active is an SWAKVPool whose layer 0 is a window layer.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.kv_layout = KVLayout.WINDOWED if _is_swa(pool) else KVLayout.DENSE

    def _decode_dense(self, layer, forward_batch):
        _read(self.token_to_kv_pool, layer, forward_batch)

    def _decode_windowed(self, layer, forward_batch):
        live = self.token_to_kv_pool
        _read(live, layer, forward_batch, live.translate_loc_from_full_to_swa)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        getattr(self, f"_decode_{self.kv_layout.value}")(layer, forward_batch)
        return q


class IndexSelectSlotsAttnBackend(gf.KeepsPool):
    """A preallocated (graph-safe) slot buffer filled once at init: ``index_select`` of the
    init-time pool's full->SWA map, or identity ids for a pool without one
    (``swa_slot_buf``); window layers of the live pool then index the KV with these slots."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "swa_slot_buf"

    # stale in FROZEN_KV draft: swa_slot_buf holds identity ids (0, 1, 2, ...) from the draft's
    # own MHATokenToKVPool, while run.active.full_to_swa_index_mapping maps every full id to
    # another slot (all 0 while nothing is allocated): torch.equal of the two is False.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        if _is_swa(pool):
            mapping = pool.full_to_swa_index_mapping
            n = mapping.numel()
            self.swa_slot_buf = torch.empty(n, dtype=mapping.dtype)
            torch.index_select(mapping, 0, _identity_slots(n), out=self.swa_slot_buf)
        else:
            n = pool.size + pool.page_size + 1  # the map's length: padding page and sentinel
            self.swa_slot_buf = torch.empty(n, dtype=torch.int64)
            self.swa_slot_buf.copy_(_identity_slots(n))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        live.get_key_buffer(layer.layer_id)
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = self.swa_slot_buf[loc] if is_window else loc
        return q


class _PoolProxy:
    """A thin adapter over a KV pool: its own reader method, every other attribute delegated."""

    __slots__ = ("_pool",)

    def __init__(self, pool):
        self._pool = pool

    def __getattr__(self, name):
        if name == "_pool":  # unset slot: no recursion
            raise AttributeError(name)
        return getattr(self._pool, name)

    def keys(self, layer_id: int):
        return self._pool.get_key_buffer(layer_id)


class DelegatingProxyAttnBackend(gf.KeepsPool):
    """The init-time pool wrapped in a ``__slots__`` adapter (``kv``) whose ``__getattr__``
    delegates: the launch reads keys and looks up the translator through it, so it reads the
    draft's own pool (with no translator, or its own SWA pool's)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv._pool"

    # stale in FROZEN_KV draft: kv._pool is the draft's own MHATokenToKVPool, not run.active;
    # getattr(kv, "translate_loc_from_full_to_swa", None) is None there while run.active has it.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv = _PoolProxy(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        kv = self.kv
        kv.keys(layer.layer_id)
        translate = getattr(kv, "translate_loc_from_full_to_swa", None)
        loc = forward_batch.out_cache_loc
        _ = translate(loc) if translate is not None else loc
        return q


class WindowLayerCountAttnBackend(gf.KeepsPool):
    """The SWA verdict as an ``int``: how many window layers the init-time pool has
    (``num_window_layers``), 0 for the draft's own full pool, so no launch translates."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "num_window_layers"

    # stale in FROZEN_KV draft: num_window_layers is 0 (the draft's own MHATokenToKVPool),
    # while run.active.layers_mapping has 2 window layers (0 and 2).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.num_window_layers = (
            sum(1 for _, is_window in pool.layers_mapping.values() if is_window)
            if _is_swa(pool) else 0
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        translate = live.translate_loc_from_full_to_swa if self.num_window_layers else None
        _read(live, layer, forward_batch, translate)
        return q


class PartialKeywordReaderAttnBackend(gf.KeepsPool):
    """A ``functools.partial`` of the backend's own gather with the init-time window pool's
    ``get_key_buffer`` bound as the ``key_buffer`` keyword (``_gather_window``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_gather_window"

    # stale in FROZEN_KV draft: _gather_window.keywords["key_buffer"].__self__ is the draft's
    # own MHATokenToKVPool, not run.active.swa_kv_pool (in the own-SWA draft: the own pool's
    # swa_kv_pool).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        window_pool = _window_pool_of(model_runner.token_to_kv_pool)
        self._gather_window = functools.partial(self._gather, key_buffer=window_pool.get_key_buffer)

    @staticmethod
    def _gather(sub_layer, ids, *, key_buffer):
        return key_buffer(sub_layer)[ids]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        sub_layer, is_window = _window_layer(live, layer.layer_id)
        if is_window:
            self._gather_window(sub_layer, live.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc))
        else:
            _read(live, layer, forward_batch)
        return q


def _layer_slots(pool):
    if _is_swa(pool):
        return {layer_id: (pool.swa_kv_pool if is_window else pool.full_kv_pool, sub_layer)
                for layer_id, (sub_layer, is_window) in pool.layers_mapping.items()}
    return {layer_id: (pool, layer_id) for layer_id in range(pool.layer_num)}


class LayerTupleDictAttnBackend(gf.KeepsPool):
    """A dict ``layer_id -> (sub-pool, sub-layer)`` built at init from the init-time pool
    (``layer_slots``); each launch reads its layer's keys from the tuple's sub-pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "layer_slots["

    # stale in FROZEN_KV draft: layer_slots[0][0] is the draft's own MHATokenToKVPool, while
    # the launch's layer 0 lives in run.active.swa_kv_pool (in the own-SWA draft:
    # layer_slots[0][0] is the own pool's swa_kv_pool).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.layer_slots = _layer_slots(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        sub_pool, sub_layer = self.layer_slots[layer.layer_id]
        sub_pool.get_key_buffer(sub_layer)
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        return q


@dataclasses.dataclass
class _KVContext:
    """KV state shared by every backend over one allocator (target, drafts, graph runners)."""

    kv_pool: object
    page_size: int


# one context per allocator: the first backend built over it makes it
_KV_CONTEXTS: "weakref.WeakKeyDictionary[object, _KVContext]" = weakref.WeakKeyDictionary()


def _shared_kv_context(model_runner) -> _KVContext:
    allocator = model_runner.token_to_kv_pool_allocator
    ctx = _KV_CONTEXTS.get(allocator)
    if ctx is None:
        ctx = _KV_CONTEXTS[allocator] = _KVContext(model_runner.token_to_kv_pool,
                                                   model_runner.page_size)
    return ctx


class SharedContextAttnBackend(gf.KeepsPool):
    """A KV context shared by every backend over the same allocator (``kv_ctx``), made by the
    first backend from its own pool: the draft backend's context keeps the draft's own pool,
    which its launches read and translate through."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv_ctx.kv_pool"

    # stale in FROZEN_KV draft: kv_ctx.kv_pool is the draft's own MHATokenToKVPool (the
    # scenario's allocator is fresh, so the draft made the context), not run.active; in the
    # own-SWA draft it is the own SWAKVPool, not the target's.

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_ctx = _shared_kv_context(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.kv_ctx.kv_pool
        _, is_window = _window_layer(pool, layer.layer_id)
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if is_window else None)
        return q


def _key_reader(pool):
    """A primed coroutine: ``send(layer_id)`` answers that layer's key buffer of ``pool``."""
    layer_id = yield
    while True:
        layer_id = yield pool.get_key_buffer(layer_id)


class GeneratorKeyReaderAttnBackend(gf.KeepsPool):
    """A generator primed at init (``_key_reader``) whose suspended frame holds the init-time
    pool: every launch gets its layer's keys by ``send(layer_id)``, from the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_key_reader"

    # stale in FROZEN_KV draft: _key_reader.gi_frame.f_locals["pool"] is the draft's own
    # MHATokenToKVPool, not run.active (in the own-SWA draft: the own SWAKVPool).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._key_reader = _key_reader(model_runner.token_to_kv_pool)
        next(self._key_reader)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._key_reader.send(layer.layer_id)
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        return q


class _MetadataBuilder:
    """Builds decode metadata; the pool is a class attribute ("every builder reads the same
    cache"), set by the backend that makes the builder."""

    kv_pool = None

    def __init__(self, page_size: int):
        self.page_size = page_size

    def build(self, forward_batch):
        return SimpleNamespace(batch_size=forward_batch.batch_size, page_size=self.page_size,
                               loc=forward_batch.out_cache_loc)


class BuilderClassPoolAttnBackend(gf.KeepsPool):
    """The init-time pool set as a class attribute of the metadata-builder helper class and
    read per launch through the backend's builder instance (``meta_builder.kv_pool``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "meta_builder.kv_pool"

    # stale in FROZEN_KV draft: meta_builder.kv_pool (that is, _MetadataBuilder.kv_pool) is the
    # draft's own MHATokenToKVPool, not run.active (in the own-SWA draft: the own SWAKVPool).

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _MetadataBuilder.kv_pool = model_runner.token_to_kv_pool
        self.meta_builder = _MetadataBuilder(self.page_size)

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = self.meta_builder.build(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.meta_builder.kv_pool
        _, is_window = _window_layer(pool, layer.layer_id)
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if is_window else None)
        return q


# =========================================================================== correct


class _LayerGeometry:
    """One layer's geometry; handed the live pool by each launch."""

    def __init__(self, layer_id: int, head_dim: int, window: int):
        self.layer_id = layer_id
        self.head_dim = head_dim
        self.window = window

    def read(self, live, forward_batch):
        sub_layer, is_window = _window_layer(live, self.layer_id)
        if is_window:
            live.swa_kv_pool.get_key_buffer(sub_layer)
            return live.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        live.get_key_buffer(self.layer_id)
        return forward_batch.out_cache_loc


def make_layer_geometry(pool, layer_id: int) -> _LayerGeometry:
    return _LayerGeometry(layer_id, pool.head_dim, bb.WINDOW)


class FactoryLayerGeometryAttnBackend(gf.KeepsPool):
    """FactoryLayerList's per-layer handles, holding geometry only (layer id, head dim,
    window): each launch hands its handle the live pool. Handles exist for the target's
    layers too (a draft's own pool has fewer): the count is the model's, not a pool verdict."""

    EXPECT, CONFIGS = "correct", ALL
    MODEL_LAYERS = 4

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.layer_geometry = [make_layer_geometry(pool, i) for i in range(self.MODEL_LAYERS)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.layer_geometry[layer.layer_id].read(self.token_to_kv_pool, forward_batch)
        return q


class _RowsGather(nn.Module):
    """Gathers rows of a key buffer it is handed; holds the window size as a buffer."""

    def __init__(self, window: int):
        super().__init__()
        self.register_buffer("window", torch.tensor(window), persistent=False)

    def forward(self, key_buffer: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return key_buffer[ids]


class _GeometryReader(nn.Module):
    def __init__(self, head_dim: int, window: int):
        super().__init__()
        self.rows = _RowsGather(window)
        self.register_buffer("k_scale", torch.ones(head_dim), persistent=False)


class ModuleGeometryAttnBackend(gf.KeepsPool):
    """ModuleSubmodule's reader module with geometry buffers only; its gather submodule is
    handed the live pool's key buffer and ids translated through the live pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_reader = _GeometryReader(model_runner.token_to_kv_pool.head_dim, bb.WINDOW)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        ids = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        self.kv_reader.rows(live.get_key_buffer(layer.layer_id), ids)
        return q


class LayoutPerForwardAttnBackend(LayoutEnumDispatchAttnBackend):
    """LayoutEnumDispatch's enum layout, chosen again from the live pool by each metadata
    build (under the swap) before the ``getattr`` dispatch."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        self.kv_layout = KVLayout.WINDOWED if _is_swa(self.token_to_kv_pool) else KVLayout.DENSE
        super().init_forward_metadata(forward_batch)


class _LivePoolProxy:
    """DelegatingProxy's adapter over the owner's live pool: it keeps the backend, and every
    read goes to ``owner.token_to_kv_pool`` as it is at that moment."""

    __slots__ = ("_owner",)

    def __init__(self, owner):
        self._owner = owner

    def __getattr__(self, name):
        if name == "_owner":
            raise AttributeError(name)
        return getattr(self._owner.token_to_kv_pool, name)

    def keys(self, layer_id: int):
        return self._owner.token_to_kv_pool.get_key_buffer(layer_id)


class LiveProxyAttnBackend(gf.KeepsPool):
    """A ``__slots__`` proxy delegating to the backend's live ``token_to_kv_pool``."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv = _LivePoolProxy(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        kv = self.kv
        kv.keys(layer.layer_id)
        translate = getattr(kv, "translate_loc_from_full_to_swa", None)
        loc = forward_batch.out_cache_loc
        _ = translate(loc) if translate is not None else loc
        return q


class RefilledSlotsAttnBackend(gf.KeepsPool):
    """IndexSelectSlots' preallocated slot buffer, refilled in place by each metadata build
    from the live pool's map (``index_select`` into it; identity ids for a pool without one):
    the buffer keeps its storage (graph-safe) and never outlives a forward's pool."""

    EXPECT, CONFIGS = "correct", ALL
    MAX_SLOTS = 4 * (gf.sc.SIZE + gf.sc.PAGE + 1)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._slot_storage = torch.zeros(self.MAX_SLOTS, dtype=torch.int64)
        self._fill(model_runner.token_to_kv_pool)

    def _fill(self, pool):
        if _is_swa(pool):
            mapping = pool.full_to_swa_index_mapping
            n = mapping.numel()
            self.swa_slot_buf = self._slot_storage[:n]
            torch.index_select(mapping, 0, _identity_slots(n), out=self.swa_slot_buf)
        else:
            n = pool.size + pool.page_size + 1
            self.swa_slot_buf = self._slot_storage[:n]
            self.swa_slot_buf.copy_(_identity_slots(n))

    def init_forward_metadata(self, forward_batch):
        self._fill(self.token_to_kv_pool)
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        live.get_key_buffer(layer.layer_id)
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = self.swa_slot_buf[loc] if is_window else loc
        return q


class ValidatedLayerSlotsAttnBackend(gf.KeepsPool):
    """LayerTupleDict's ``layer_id -> (sub-pool, sub-layer)`` dict, kept with the pool it was
    built from and validated by identity against the live pool by each metadata build (and on
    every read): rebuilt whenever the live pool is not its source."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rebuild(model_runner.token_to_kv_pool)

    def _rebuild(self, pool):
        self._slots_source = pool
        self.layer_slots = _layer_slots(pool)

    def _validated_slots(self):
        live = self.token_to_kv_pool
        if self._slots_source is not live:
            self._rebuild(live)
        return self.layer_slots

    def init_forward_metadata(self, forward_batch):
        self._validated_slots()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        sub_pool, sub_layer = self._validated_slots()[layer.layer_id]
        sub_pool.get_key_buffer(sub_layer)
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        return q


@dataclasses.dataclass
class _AllocatorContext:
    """SharedContext's context holding what is shared and never swapped: the allocator and
    geometry."""

    allocator: object
    page_size: int


_ALLOCATOR_CONTEXTS: "weakref.WeakKeyDictionary[object, _AllocatorContext]" = (
    weakref.WeakKeyDictionary())


class SharedAllocatorContextAttnBackend(gf.KeepsPool):
    """A context shared by every backend over one allocator, holding the allocator and page
    size only; the KV is read from the backend's live pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        allocator = model_runner.token_to_kv_pool_allocator
        ctx = _ALLOCATOR_CONTEXTS.get(allocator)
        if ctx is None:
            ctx = _ALLOCATOR_CONTEXTS[allocator] = _AllocatorContext(allocator,
                                                                     model_runner.page_size)
        self.kv_ctx = ctx

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        assert self.kv_ctx.page_size > 0
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        _read(live, layer, forward_batch,
              live.translate_loc_from_full_to_swa if is_window else None)
        return q


def _owner_key_reader(owner):
    """GeneratorKeyReader's primed coroutine, its frame holding the backend: each ``send``
    reads the owner's live pool (no pool is kept in a frame local across a yield)."""
    layer_id = yield
    while True:
        layer_id = yield owner.token_to_kv_pool.get_key_buffer(layer_id)


class GeneratorOwnerReaderAttnBackend(gf.KeepsPool):
    """A generator primed at init whose frame holds the backend, reading its live pool on
    every ``send(layer_id)``."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._key_reader = _owner_key_reader(self)
        next(self._key_reader)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._key_reader.send(layer.layer_id)
        live = self.token_to_kv_pool
        _, is_window = _window_layer(live, layer.layer_id)
        loc = forward_batch.out_cache_loc
        _ = live.translate_loc_from_full_to_swa(loc) if is_window else loc
        return q


STALE = (
    FactoryLayerListAttnBackend, ModuleSubmoduleAttnBackend, ModuleBufferSlotsAttnBackend,
    LayoutEnumDispatchAttnBackend, IndexSelectSlotsAttnBackend, DelegatingProxyAttnBackend,
    WindowLayerCountAttnBackend, PartialKeywordReaderAttnBackend, LayerTupleDictAttnBackend,
    SharedContextAttnBackend, GeneratorKeyReaderAttnBackend, BuilderClassPoolAttnBackend,
)
CORRECT = (
    FactoryLayerGeometryAttnBackend, ModuleGeometryAttnBackend, LayoutPerForwardAttnBackend,
    LiveProxyAttnBackend, RefilledSlotsAttnBackend, ValidatedLayerSlotsAttnBackend,
    SharedAllocatorContextAttnBackend, GeneratorOwnerReaderAttnBackend,
)
