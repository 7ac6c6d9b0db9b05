"""A held-out set of attention backends no guard table names, written blind by guard7 (its
author never read the guard, only the bug class): material for the generic runtime check.
The honest first measure of the generic check on it (main at 45482ab): 11 of 20 stale cases
refused, 0 false alarms on the 14 correct classes (``test_guard_generic_forms7``).

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses): each
class subclasses SGLang's ``AttentionBackend`` (through ``blind_backends._DecodeOnly``);
``EXPECT`` is ``"stale"`` or ``"correct"``; ``CONFIGS`` is a subset of ``guard_forms.ALL``; a
stale class's ``STALE_STATE`` is the attribute path (or its head) a refusal must name.

Stale shapes: a pool in a ``__slots__`` slot of the backend, a frozen slots dataclass plan with
an SWA sub-pool and a "swa"/"full" string, an ``enum`` layout verdict, a data descriptor that
keeps values outside the instance, a module-level registry keyed by ``id(backend)`` reached
through a property, ``functools.partial(torch.index_select, mapping, 0)``, a view of the own
pool's mapping, int32/clone copies of it in a tuple of dicts of lists, inner backends built per
layer, a name-mangled source pool feeding per-forward metadata, a ``forward`` override with its
own mode dispatch, a kernel table of pool bound methods launched through ``forward_extend``, a
``__slots__`` translator callable, an EAGLE translate partial over the allocator's SWA pool, and
inner backends in a ``MappingProxyType`` of ``deque``s.

Correct look-alikes: the same shapes over live or allocator-resolved state, geometry named SWA,
memos keyed by the live pool, a target's own mapping view, tables rebuilt per forward, a
backend that keeps the ``model_runner`` (as several SGLang backends do) but reads no pool from
it, an EAGLE draft's own-pool partial.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import types
import weakref
from types import SimpleNamespace
from typing import Optional

import torch

import guard_forms as gf
_is_swa = gf.is_swa  # bound by assignment: provenance follows it (gaps8)

bb = gf.bb
SWAKVPool = bb.SWAKVPool
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
TARGET, OWN_SWA_DRAFT = gf.TARGET, gf.OWN_SWA_DRAFT
ALL = gf.ALL
NUM_LAYERS = 4  # the model's layer count (geometry); a FROZEN_KV draft's own pool has 1
SWAPPED = gf.SWAPPED


def _live_resolve(backend_pool, model_runner_like) -> Optional[SWAKVPool]:
    """Upstream-style resolution, done at call time: the active pool when it is SWA, None for a
    non-FROZEN_KV draft, else the allocator's pool."""
    if _is_swa(backend_pool):
        return backend_pool
    runner = model_runner_like
    if runner.is_draft_worker and not runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    kv = model_runner_like.token_to_kv_pool_allocator.get_kvcache()
    return kv if _is_swa(kv) else None


_Base7 = gf.KeepsPool


# =========================================================================== stale


class SlotPoolAttnBackend(_Base7):
    """The init-time pool kept in a ``__slots__`` slot of the backend class (not in
    ``vars(backend)``): after the swap the launch reads the draft's own pool."""

    __slots__ = ("_paged_kv",)
    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_paged_kv"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._paged_kv = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self._paged_kv, layer, forward_batch)
        return q


@dataclasses.dataclass(frozen=True, slots=True)
class _WindowPlan:
    mode: str  # "swa" or "full": decided from the pool at construction
    sub_pool: object  # the pool window layers read (the SWA sub-pool, or the whole pool)
    window: int = bb.WINDOW


class SlottedPlanAttnBackend(_Base7):
    """A frozen slots dataclass plan (no ``__dict__``) decided at init: ``mode`` "full" and the
    draft's own pool for a FROZEN_KV draft; the own SWA pool's ``swa_kv_pool`` for a draft
    owning an SWA pool. Either way the launch reads a sub-pool of the wrong pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "plan"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.plan = (_WindowPlan("swa", pool.swa_kv_pool) if _is_swa(pool)
                     else _WindowPlan("full", pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.plan.mode == "swa":
            self.plan.sub_pool.get_key_buffer(0)
        else:
            bb._read_kv(self.plan.sub_pool, layer, forward_batch)
        return q


class KVLayout(enum.Enum):
    PAGED_FULL = "full"
    PAGED_WINDOWED = "swa"


class EnumLayoutAttnBackend(_Base7):
    """The SWA verdict as an enum member (``kv_layout``) from the init-time pool: PAGED_FULL for
    a FROZEN_KV draft, so the target's SWA layers get full-pool ids untranslated."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kv_layout"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_layout = (KVLayout.PAGED_WINDOWED if _is_swa(model_runner.token_to_kv_pool)
                          else KVLayout.PAGED_FULL)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.kv_layout is KVLayout.PAGED_WINDOWED
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if windowed else None)
        return q


class _OutOfInstance:
    """A data descriptor keeping each instance's value in its own dict (keyed by id), as a
    cached-resource helper might: nothing lands in ``vars(instance)``."""

    def __set_name__(self, owner, name):
        self.name = name
        self.values = {}

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return self.values[id(obj)]

    def __set__(self, obj, value):
        self.values[id(obj)] = value


class DescriptorPoolAttnBackend(_Base7):
    """The init-time pool assigned to ``paged_cache``, a class-level data descriptor that stores
    it outside the instance; the launch reads the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_cache"
    paged_cache = _OutOfInstance()

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_cache = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.paged_cache, layer, forward_batch)
        return q


_WINDOW_REGISTRY: dict = {}  # id(backend) -> {"pool": ..., "swa": ...}: a shared module registry


class RegistryEntryAttnBackend(_Base7):
    """Its SWA state lives in a module-level registry keyed by ``id(self)``, reached through the
    ``window_entry`` property: the entry holds the init-time pool and verdict."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "window_entry"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        _WINDOW_REGISTRY[id(self)] = {"pool": pool, "swa": _is_swa(pool)}

    @property
    def window_entry(self) -> dict:
        return _WINDOW_REGISTRY[id(self)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        entry = self.window_entry
        bb._read_kv(entry["pool"], layer, forward_batch,
                    entry["pool"].translate_loc_from_full_to_swa if entry["swa"] else None)
        return q


class PartialIndexSelectAttnBackend(_Base7):
    """``to_swa = functools.partial(torch.index_select, mapping, 0)`` over the own SWA pool's
    mapping tensor: the launch translates with the wrong pool's table."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "to_swa"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.to_swa = functools.partial(torch.index_select, mapping, 0)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.to_swa)
        return q


class MappingViewAttnBackend(_Base7):
    """A view of the own SWA pool's mapping (``mapping.view(-1)[:]``: another tensor object,
    same storage) used as the translate table."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "_slot_lut"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._slot_lut = model_runner.token_to_kv_pool.full_to_swa_index_mapping.view(-1)[:]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, lambda loc: self._slot_lut[loc])
        return q


class NestedTablesAttnBackend(_Base7):
    """Tables from the own SWA pool's mapping in a tuple of dicts of lists, built once: an
    int32 copy (``.to(torch.int32)``) and a ``narrow`` view (same storage as that pool's
    mapping), which the launch translates with. The target's mapping is another tensor."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "tables"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.tables = ({"swa_loc": [mapping.to(torch.int32),
                                    mapping.narrow(0, 0, mapping.numel())]},
                       {"page": []})

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        table = self.tables[0]["swa_loc"][1]
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, lambda loc: table[loc])
        return q


class _LayerInner(bb._DecodeOnly):
    """One layer's inner backend: its pool and SWA verdict fixed at construction."""

    def __init__(self, pool, layer_id: int):
        self.token_to_kv_pool = pool
        self.layer_id = layer_id
        self.use_sliding_window_kv_pool = _is_swa(pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if self.use_sliding_window_kv_pool
                    else None)
        return q


class PerLayerInnerAttnBackend(_Base7):
    """An inner backend built per layer, in a tuple, each with the init-time pool; the swap
    rebinds only the outer ``token_to_kv_pool``."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "per_layer"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.per_layer = tuple(_LayerInner(model_runner.token_to_kv_pool, i)
                               for i in range(NUM_LAYERS))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.per_layer[layer.layer_id].forward_decode(q, k, v, layer, forward_batch,
                                                             save_kv_cache)


class _DecodeMeta(SimpleNamespace):
    """Per-forward metadata (like the FA/trtllm metadata objects)."""


class MangledMetadataAttnBackend(_Base7):
    """The init-time pool kept under a name-mangled attribute (``self.__kv_src``, stored as
    ``_MangledMetadataAttnBackend__kv_src``); ``init_forward_metadata`` builds the metadata the
    launch reads from it every forward (so ``forward_metadata.kv_pool`` is stale too)."""

    EXPECT, CONFIGS, STALE_STATE = ("stale", (FROZEN_KV,),
                                    "_MangledMetadataAttnBackend__kv_src")

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.__kv_src = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        src = self.__kv_src
        self.forward_metadata = _DecodeMeta(
            batch_size=forward_batch.batch_size, kv_pool=src,
            swa_loc=(src.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
                     if _is_swa(src) else None))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.forward_metadata.kv_pool, layer, forward_batch)
        return q


class ForwardOverrideAttnBackend(_Base7):
    """Overrides ``forward`` with its own mode dispatch (as SGLang's hybrid wrappers do) and
    never calls the base dispatch; the SWA decision is a string, ``window_mode = "full"`` for a
    FROZEN_KV draft, so the target's SWA layers get full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "window_mode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.window_mode = "swa" if _is_swa(model_runner.token_to_kv_pool) else "full"

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        mode = forward_batch.forward_mode
        if mode.is_idle():
            return q
        run = self._decode_impl if mode.is_decode() else self._extend_impl
        return run(q, layer, forward_batch)

    def _decode_impl(self, q, layer, forward_batch):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if self.window_mode == "swa" else None)
        return q

    _extend_impl = _decode_impl


class KernelTableExtendAttnBackend(_Base7):
    """A kernel table ``({"read": [pool.get_key_buffer], "translate": [...]},)`` of the init-time
    pool's bound methods, launched through ``forward_extend`` (decode delegates to it)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kernels"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.kernels = ({"read": [pool.get_key_buffer],
                         "translate": [pool.translate_loc_from_full_to_swa if _is_swa(pool)
                                       else None]},)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        table = self.kernels[0]
        table["read"][0](layer.layer_id)
        translate = table["translate"][0]
        if translate is not None:
            translate(forward_batch.out_cache_loc)
        return q


class _SlotTranslator:
    """A callable translator with ``__slots__`` (no ``__dict__``): identity when no table."""

    __slots__ = ("table",)

    def __init__(self, table):
        self.table = table

    def __call__(self, loc):
        return loc if self.table is None else self.table[loc]


class SlotTranslatorAttnBackend(_Base7):
    """A ``__slots__`` translator built at init from the pool: no table (identity) for a FROZEN_KV
    draft's full pool, the own SWA pool's mapping for a draft owning one; both wrong for the
    target's SWA pool the launch reads."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "translator"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.translator = _SlotTranslator(pool.full_to_swa_index_mapping if _is_swa(pool)
                                          else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.translator)
        return q


def _translate_with(pool, loc):
    return pool.translate_loc_from_full_to_swa(loc)


class EaglePartialTranslateAttnBackend(_Base7):
    """An EAGLE draft (own full pool, the target's SWA allocator) binds
    ``functools.partial(_translate_with, allocator.get_kvcache())``: its full-pool ids get
    translated with the target's SWA mapping."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (EAGLE,), "window_translate"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        kv = model_runner.token_to_kv_pool_allocator.get_kvcache()
        self.window_translate = functools.partial(_translate_with, kv) if _is_swa(kv) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.window_translate)
        return q


class ProxyDequeInnerAttnBackend(_Base7):
    """Inner backends in a read-only ``MappingProxyType`` of ``deque``s (a stage pipeline);
    each inner keeps the init-time pool and its verdict, the swap rebinds only the wrapper."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "routes"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.routes = types.MappingProxyType({
            "decode": collections.deque([bb._InnerAttnBackend(model_runner)]),
            "extend": collections.deque([bb._InnerAttnBackend(model_runner)]),
        })

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        for stage in self.routes["decode"]:
            stage.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        for stage in self.routes["decode"]:
            q = stage.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return q


# =========================================================================== correct


class SlotAllocatorAttnBackend(_Base7):
    """``__slots__`` hold the allocator and the role; ``_swa_kv_pool`` and the flag are
    properties resolved per call from the live pool (upstream's rule): they follow the swap."""

    __slots__ = ("_allocator", "_role")
    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._allocator = model_runner.token_to_kv_pool_allocator
        self._role = SimpleNamespace(is_draft_worker=model_runner.is_draft_worker,
                                     spec_algorithm=model_runner.spec_algorithm,
                                     token_to_kv_pool_allocator=self._allocator)

    @property
    def _swa_kv_pool(self):
        return _live_resolve(self.token_to_kv_pool, self._role)

    @property
    def use_sliding_window_kv_pool(self):
        return self._swa_kv_pool is not None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


@dataclasses.dataclass(frozen=True, slots=True)
class _Geometry:
    attention: str  # "swa": the model has sliding-window layers (geometry, not a pool verdict)
    window: int
    swa_layer_ids: tuple


class SlottedGeometryAttnBackend(_Base7):
    """A frozen slots dataclass of model geometry, ``attention="swa"`` in every role (an EAGLE
    draft runs window attention over full-pool ids too); pools are read live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.geometry = _Geometry("swa", bb.WINDOW, (0, 2))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.geometry.attention == "swa" and _is_swa(pool)
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if windowed else None)
        return q


class EnumPerForwardAttnBackend(_Base7):
    """The enum layout set in ``__init__`` and decided again in ``init_forward_metadata`` (run
    under the swap before every launch)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._decide()

    def _decide(self):
        self.kv_layout = (KVLayout.PAGED_WINDOWED if _is_swa(self.token_to_kv_pool)
                          else KVLayout.PAGED_FULL)

    def init_forward_metadata(self, forward_batch):
        self._decide()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.kv_layout is KVLayout.PAGED_WINDOWED
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if windowed else None)
        return q


class _LiveAlias:
    """A data descriptor aliasing another attribute: reads and writes go to ``target``."""

    def __init__(self, target: str):
        self.target = target

    def __get__(self, obj, objtype=None):
        return self if obj is None else getattr(obj, self.target)

    def __set__(self, obj, value):
        setattr(obj, self.target, value)


class DescriptorAliasAttnBackend(_Base7):
    """``paged_cache`` and ``swa_cache`` are descriptors aliasing the live ``token_to_kv_pool``;
    the constructor's assignment lands on ``token_to_kv_pool`` itself, which the swap rebinds."""

    EXPECT, CONFIGS = "correct", ALL
    paged_cache = _LiveAlias("token_to_kv_pool")
    swa_cache = _LiveAlias("token_to_kv_pool")

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_cache = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.paged_cache
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if _is_swa(self.swa_cache) else None)
        return q


_POOL_MEMO: dict = {}  # id(pool) -> SimpleNamespace(pool, swa): shared by every backend


class LivePoolRegistryAttnBackend(_Base7):
    """A module-level memo keyed by the pool's id, filled at init (the draft's own pool) and per
    forward (the target's); ``window_entry`` looks up the live pool's entry."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._remember(model_runner.token_to_kv_pool)

    @staticmethod
    def _remember(pool):
        return _POOL_MEMO.setdefault(id(pool), SimpleNamespace(pool=pool, swa=_is_swa(pool)))

    @property
    def window_entry(self):
        return self._remember(self.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        self._remember(self.token_to_kv_pool)
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        entry = self.window_entry
        bb._read_kv(entry.pool, layer, forward_batch,
                    entry.pool.translate_loc_from_full_to_swa if entry.swa else None)
        return q


def _allocator_translate(allocator, follows_target: bool, loc):
    pool = allocator.get_kvcache()
    if follows_target and _is_swa(pool):
        return pool.translate_loc_from_full_to_swa(loc)
    return loc


class PartialAllocatorAttnBackend(_Base7):
    """``swa_translate = functools.partial(_allocator_translate, allocator, follows_target)``:
    the allocator (never swapped) is asked for its pool per call; ``follows_target`` is False
    only for a draft that is not FROZEN_KV (an EAGLE draft's own full pool is not translated)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        follows = (not model_runner.is_draft_worker
                   or model_runner.spec_algorithm.is_frozen_kv_mtp())
        self.swa_translate = functools.partial(
            _allocator_translate, model_runner.token_to_kv_pool_allocator, follows)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.swa_translate)
        return q


class TargetMappingViewAttnBackend(MappingViewAttnBackend):
    """The same mapping view on a target (nothing swaps its pool, so the view stays its live
    pool's table) or None on a plain model."""

    EXPECT, CONFIGS = "correct", (TARGET, NON_SWA)

    def __init__(self, model_runner):
        _Base7.__init__(self, model_runner)
        pool = model_runner.token_to_kv_pool
        self._slot_lut = pool.full_to_swa_index_mapping.view(-1)[:] if _is_swa(pool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        lut = self._slot_lut
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    (lambda loc: lut[loc]) if lut is not None else None)
        return q


class PerForwardTablesAttnBackend(_Base7):
    """The nested tables (tuple of dicts of lists: an int32 copy and a ``narrow`` view of the
    mapping) rebuilt in ``init_forward_metadata`` from the live pool; empty where the active
    pool is not SWA. The int32 copy is no pool's tensor; the view shares the live mapping's
    storage."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rebuild()

    def _rebuild(self):
        pool = self.token_to_kv_pool
        mapping = pool.full_to_swa_index_mapping if _is_swa(pool) else None
        copies = ([mapping.to(torch.int32), mapping.narrow(0, 0, mapping.numel())]
                  if mapping is not None else [])
        self.tables = ({"swa_loc": copies}, {"page": []})

    def init_forward_metadata(self, forward_batch):
        self._rebuild()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        copies = self.tables[0]["swa_loc"]
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    (lambda loc: copies[0][loc].long()) if copies else None)
        return q


class _LiveLayerInner(bb._DecodeOnly):
    """A layer's inner backend whose pool is a property over its parent (held weakly)."""

    def __init__(self, parent, layer_id: int):
        self._parent = weakref.ref(parent)
        self.layer_id = layer_id

    @property
    def token_to_kv_pool(self):
        return self._parent().token_to_kv_pool

    @property
    def _swa_kv_pool(self):
        pool = self.token_to_kv_pool
        return pool if _is_swa(pool) else None

    @property
    def use_sliding_window_kv_pool(self):
        return self._swa_kv_pool is not None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if self.use_sliding_window_kv_pool
                    else None)
        return q


class PerLayerLiveInnerAttnBackend(_Base7):
    """Inner backends per layer, in a tuple, reading the outer backend's live pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.per_layer = tuple(_LiveLayerInner(self, i) for i in range(NUM_LAYERS))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.per_layer[layer.layer_id].forward_decode(q, k, v, layer, forward_batch,
                                                             save_kv_cache)


class MangledAllocatorMetadataAttnBackend(_Base7):
    """A name-mangled allocator (``self.__allocator``) and per-forward metadata built from the
    live pool: ``forward_metadata.kv_pool`` is the swapped-in pool every forward."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.__allocator = model_runner.token_to_kv_pool_allocator

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        self.forward_metadata = _DecodeMeta(
            batch_size=forward_batch.batch_size, kv_pool=pool, allocator=self.__allocator,
            swa_loc=(pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
                     if _is_swa(pool) else None))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.forward_metadata.kv_pool, layer, forward_batch)
        return q


class ForwardOverrideLiveAttnBackend(_Base7):
    """Overrides ``forward`` with its own dispatch; the "swa"/"full" string ``window_mode`` is
    decided in ``init_forward_metadata`` (under the swap) from the live pool every forward. A
    class constant ``attention_kind = "swa"`` is geometry."""

    EXPECT, CONFIGS = "correct", ALL
    attention_kind = "swa"

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.window_mode = "swa" if _is_swa(self.token_to_kv_pool) else "full"

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if forward_batch.forward_mode.is_idle():
            return q
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    pool.translate_loc_from_full_to_swa if self.window_mode == "swa" else None)
        return q


class KeepsRunnerAttnBackend(_Base7):
    """Keeps ``self.model_runner`` (as SGLang's hybrid, FA and DSv4 backends do) and its
    allocator's bound ``get_kvcache`` in a kernel table, but reads only geometry from the
    runner and the pool from the live ``token_to_kv_pool``; launched via ``forward_extend``."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.model_runner = model_runner
        self.kernels = ({"kvcache": [model_runner.token_to_kv_pool_allocator.get_kvcache],
                         "read": [self._read]},)

    def _read(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        assert self.model_runner.page_size == self.page_size
        self.kernels[0]["read"][0](layer.layer_id)
        pool = self.token_to_kv_pool
        if _is_swa(pool):
            pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return q


class EagleOwnPoolPartialAttnBackend(_Base7):
    """``functools.partial(_gather, pool)`` over the pool active at construction, with no
    translation: right wherever nothing swaps the pool (an EAGLE draft's own full pool, a
    target, a plain model)."""

    EXPECT, CONFIGS = "correct", (EAGLE, TARGET, NON_SWA)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self._gather = functools.partial(bb._read_kv, pool)
        self._translate = pool.translate_loc_from_full_to_swa if _is_swa(pool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._gather(layer, forward_batch, self._translate)
        return q


class ProxyDequeLiveInnerAttnBackend(_Base7):
    """Inner backends in a ``MappingProxyType`` of ``deque``s, handed the swapped pool by the
    wrapper's ``token_to_kv_pool`` setter."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.routes = types.MappingProxyType({
            "decode": collections.deque([bb.LivePropertyAttnBackend(model_runner)]),
            "extend": collections.deque([bb.LivePropertyAttnBackend(model_runner)]),
        })
        super().__init__(model_runner)

    @property
    def token_to_kv_pool(self):
        return self.routes["decode"][0].token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        for stages in self.routes.values():
            for stage in stages:
                stage.token_to_kv_pool = pool

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        for stage in self.routes["decode"]:
            stage.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        for stage in self.routes["decode"]:
            q = stage.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return q


STALE = (
    SlotPoolAttnBackend, SlottedPlanAttnBackend, EnumLayoutAttnBackend, DescriptorPoolAttnBackend,
    RegistryEntryAttnBackend, PartialIndexSelectAttnBackend, MappingViewAttnBackend,
    NestedTablesAttnBackend, PerLayerInnerAttnBackend, MangledMetadataAttnBackend,
    ForwardOverrideAttnBackend, KernelTableExtendAttnBackend, SlotTranslatorAttnBackend,
    EaglePartialTranslateAttnBackend, ProxyDequeInnerAttnBackend,
)
CORRECT = (
    SlotAllocatorAttnBackend, SlottedGeometryAttnBackend, EnumPerForwardAttnBackend,
    DescriptorAliasAttnBackend, LivePoolRegistryAttnBackend, PartialAllocatorAttnBackend,
    TargetMappingViewAttnBackend, PerForwardTablesAttnBackend, PerLayerLiveInnerAttnBackend,
    MangledAllocatorMetadataAttnBackend, ForwardOverrideLiveAttnBackend, KeepsRunnerAttnBackend,
    EagleOwnPoolPartialAttnBackend, ProxyDequeLiveInnerAttnBackend,
)
