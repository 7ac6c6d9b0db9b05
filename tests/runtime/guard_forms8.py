"""Further forms of the classes of stale state ``guard_forms7`` found the generic check missing,
written by guard5 after fixing them (not blind: its author changed the check): for each class,
two stale forms nobody named and a correct twin, so that a fix is of the class, not the example.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses).
Classes of misses and their forms here:

* a verdict kept as a value, not a bool: a module string constant; an ``IntEnum`` chosen by a
  negated test; a string stored by both branches of an ``if`` statement; twins: the same enum
  decided from the model's geometry, the same ``if`` statement made per forward;
* state in a registry reached through a property: a ``WeakKeyDictionary`` keyed by the backend
  (``.get(self)``); a dict on a module registry object keyed by ``id(self)``; twin: the
  registry entry rewritten from the live pool per forward;
* a mapping tensor given to a ``functools.partial``: as a keyword; inside a tuple argument;
  twin: a partial over a target's own live mapping;
* pool state three containers deep: a list of tuples of dicts of bound methods; a dict of dicts
  of records; twin: the same nesting rebuilt per forward;
* a table (None, or another pool's mapping) in a helper the code derives from SWA state: a
  ``NamedTuple`` translator; a closure cell; twins: the translator rebuilt per forward, a
  target's record of its own mapping beside a buffer left None;
* a ``forward`` that bypasses the base dispatch: inherited from a mixin (the backend class
  defines none); an override with a bool verdict calling ``forward_extend`` itself; twin: an
  override that chooses and then calls ``super().forward`` (checked once, at the base).
"""

from __future__ import annotations

import enum
import functools
import weakref
from types import SimpleNamespace
from typing import NamedTuple, Optional

import torch

import guard_forms as gf
from guard_forms import is_swa as _is_swa

bb = gf.bb
SWAKVPool = bb.SWAKVPool
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
TARGET, OWN_SWA_DRAFT = gf.TARGET, gf.OWN_SWA_DRAFT
ALL = gf.ALL
SWAPPED = gf.SWAPPED
PAGED_WINDOW, PAGED_DENSE = "paged-window", "paged-dense"  # module constants, not literals


def _translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


_Base8 = gf.KeepsPool


# =========================================================================== stale


class ModuleConstantVerdictAttnBackend(_Base8):
    """``self.paging = PAGED_WINDOW if _is_swa(pool) else PAGED_DENSE``: the verdict a module
    string constant, decided from the init-time pool (dense for a FROZEN_KV draft)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paging"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paging = PAGED_WINDOW if _is_swa(model_runner.token_to_kv_pool) else PAGED_DENSE

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.paging == PAGED_WINDOW else None)
        return q


class IfStatementVerdictAttnBackend(_Base8):
    """``if isinstance(pool, SWAKVPool): self.read_mode = "windowed" else: ... "dense"``: the
    string verdict stored by the two branches of an ``if`` statement on the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "read_mode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        if isinstance(model_runner.token_to_kv_pool, SWAKVPool):
            self.read_mode = "windowed"
        else:
            self.read_mode = "dense"

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.read_mode == "windowed" else None)
        return q


class Addressing(enum.IntEnum):
    DENSE = 0
    WINDOWED = 1


class NegatedIntEnumAttnBackend(_Base8):
    """``Addressing.DENSE if not isinstance(pool, SWAKVPool) else Addressing.WINDOWED``: an
    ``IntEnum`` verdict chosen by a negated test on the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "addressing"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.addressing = (Addressing.DENSE if not isinstance(pool, SWAKVPool)
                           else Addressing.WINDOWED)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.addressing == Addressing.WINDOWED else None)
        return q


_PLANS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # backend -> its plan


class WeakKeyPlanAttnBackend(_Base8):
    """A module ``WeakKeyDictionary`` keyed by the backend itself, read through the ``plan``
    property with ``.get(self)``: the plan holds the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "plan"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _PLANS[self] = SimpleNamespace(kv=model_runner.token_to_kv_pool, window=bb.WINDOW)

    @property
    def plan(self):
        return _PLANS.get(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        kv = self.plan.kv
        bb._read_kv(kv, layer, forward_batch, _translate(kv))
        return q


_KERNELS = SimpleNamespace(readers={})  # a registry object of the module: id(backend) -> readers


class RegistryAttributeAttnBackend(_Base8):
    """A dict on a module registry object (``_KERNELS.readers``) keyed by ``id(self)``, holding
    the init-time pool's bound reader, reached through the ``reader`` property."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "reader"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _KERNELS.readers[id(self)] = [model_runner.token_to_kv_pool.get_key_buffer]

    @property
    def reader(self):
        """The key reader registered for this backend."""
        return _KERNELS.readers[id(self)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.reader[0](layer.layer_id)
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


def _gather(loc, table):
    return table[loc]


class PartialKeywordTableAttnBackend(_Base8):
    """``functools.partial(_gather, table=mapping)``: the own SWA pool's mapping given as a
    keyword argument."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "swa_gather"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.swa_gather = functools.partial(_gather, table=mapping)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.swa_gather)
        return q


def _lookup(spec, loc):
    table, offset = spec
    return table[loc] + offset


class PartialTupleArgAttnBackend(_Base8):
    """``functools.partial(_lookup, (mapping, 0))``: the own mapping inside a tuple argument."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "window_lookup"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.window_lookup = functools.partial(_lookup, (mapping, 0))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.window_lookup)
        return q


class ListTupleDictAttnBackend(_Base8):
    """``[({"key": pool.get_key_buffer},)]``: a bound method of the init-time pool in a list of
    tuples of dicts."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "stages"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.stages = [({"key": model_runner.token_to_kv_pool.get_key_buffer},)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.stages[0][0]["key"](layer.layer_id)
        return q


class DictDictRecordAttnBackend(_Base8):
    """``{"decode": {"kv": SimpleNamespace(pool=pool)}}``: the init-time pool in a record two
    dicts deep."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "routes"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        record = SimpleNamespace(pool=model_runner.token_to_kv_pool, page=self.page_size)
        self.routes = {"decode": {"kv": record}}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.routes["decode"]["kv"].pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


class _Translate(NamedTuple):
    table: Optional[torch.Tensor]  # the full->SWA mapping, or None: identity
    page_size: int


class NamedTupleTranslatorAttnBackend(_Base8):
    """A ``NamedTuple`` translator from the init-time pool: no table for a FROZEN_KV draft's
    full pool, the own SWA pool's mapping for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "slot_translate"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.slot_translate = _Translate(
            pool.full_to_swa_index_mapping if _is_swa(pool) else None, self.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        table = self.slot_translate.table
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    (lambda loc: table[loc]) if table is not None else None)
        return q


def _translator(table):
    def translate(loc):
        return loc if table is None else table[loc]
    return translate


class ClosureTableAttnBackend(_Base8):
    """A translate closure whose cell holds the init-time table: None (identity) for a
    FROZEN_KV draft's full pool, the own mapping for a draft owning an SWA pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "to_window"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.to_window = _translator(pool.full_to_swa_index_mapping if _is_swa(pool) else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.to_window)
        return q


class _ModeDispatch:
    """A mixin with its own ``forward`` (mode dispatch), placed before the backend base: the
    backend class itself defines no ``forward``."""

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if forward_batch.forward_mode.is_idle():
            return q
        return self._run(q, layer, forward_batch)


class MixinForwardAttnBackend(_ModeDispatch, _Base8):
    """Its ``forward`` comes from a mixin that never calls the base dispatch; the verdict is
    the string ``addressing = "dense"`` for a FROZEN_KV draft."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "addressing"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.addressing = "window" if _is_swa(model_runner.token_to_kv_pool) else "dense"

    def _run(self, q, layer, forward_batch):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.addressing == "window" else None)
        return q


class OverrideBoolVerdictAttnBackend(_Base8):
    """Overrides ``forward`` and calls ``forward_extend`` itself for every mode; its verdict is
    a bool from the init-time pool under a name with no SWA word (``paged_split``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_split"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_split = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool) if self.paged_split else None)
        return q


# =========================================================================== correct


class GeometryEnumAttnBackend(_Base8):
    """The ``Addressing`` enum decided from the model's geometry (a window exists), the same in
    every role; the pool test is made on the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.addressing = Addressing.WINDOWED if bb.WINDOW > 0 else Addressing.DENSE

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.addressing == Addressing.WINDOWED and _is_swa(pool)
        bb._read_kv(pool, layer, forward_batch, _translate(pool) if windowed else None)
        return q


_LIVE: dict = {}  # id(backend) -> its plan, rewritten per forward


class PerForwardRegistryAttnBackend(_Base8):
    """A module registry keyed by ``id(self)`` behind a property, like RegistryEntry, but its
    entry is rewritten from the live pool in ``init_forward_metadata`` (under the swap)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._register()

    def _register(self):
        pool = self.token_to_kv_pool
        _LIVE[id(self)] = {"pool": pool, "reader": pool.get_key_buffer}

    @property
    def entry(self):
        return _LIVE[id(self)]

    def init_forward_metadata(self, forward_batch):
        self._register()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.entry["pool"]
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


class TargetPartialAttnBackend(_Base8):
    """``functools.partial(_gather, table=mapping)`` over a target's own live mapping (nothing
    swaps a target's pool), None on a plain model."""

    EXPECT, CONFIGS = "correct", (TARGET, NON_SWA)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.swa_gather = (functools.partial(_gather, table=pool.full_to_swa_index_mapping)
                           if _is_swa(pool) else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self.swa_gather)
        return q


class PerForwardNestingAttnBackend(_Base8):
    """The list of tuples of dicts of ListTupleDict, and a dict of dicts of records, rebuilt
    from the live pool per forward."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rebuild()

    def _rebuild(self):
        pool = self.token_to_kv_pool
        self.stages = [({"key": pool.get_key_buffer},)]
        self.routes = {"decode": {"kv": SimpleNamespace(pool=pool, page=self.page_size)}}

    def init_forward_metadata(self, forward_batch):
        self._rebuild()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.stages[0][0]["key"](layer.layer_id)
        pool = self.routes["decode"]["kv"].pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


class PerForwardTranslatorAttnBackend(_Base8):
    """The ``NamedTuple`` translator of NamedTupleTranslator, rebuilt from the live pool in
    ``init_forward_metadata``."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rebuild()

    def _rebuild(self):
        pool = self.token_to_kv_pool
        self.slot_translate = _Translate(
            pool.full_to_swa_index_mapping if _is_swa(pool) else None, self.page_size)

    def init_forward_metadata(self, forward_batch):
        self._rebuild()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        table = self.slot_translate.table
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    (lambda loc: table[loc]) if table is not None else None)
        return q


class SwaRecordUnsetBufferAttnBackend(_Base8):
    """A target's record of its own SWA mapping beside a CUDA-graph buffer not made yet
    (``graph_buffer=None``): a None beside SWA state is not a missing SWA table."""

    EXPECT, CONFIGS = "correct", (TARGET, NON_SWA)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.swa_meta = (SimpleNamespace(mapping=pool.full_to_swa_index_mapping,
                                         graph_buffer=None) if _is_swa(pool) else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        meta = self.swa_meta
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    (lambda loc: meta.mapping[loc]) if meta is not None else None)
        return q


class PerForwardIfStatementAttnBackend(_Base8):
    """The ``if`` statement of IfStatementVerdict, made again in ``init_forward_metadata`` on
    the live pool (under the swap)."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            self.read_mode = "windowed"
        else:
            self.read_mode = "dense"
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.read_mode == "windowed" else None)
        return q


class OverrideCallsBaseAttnBackend(_Base8):
    """Overrides ``forward`` to pick a mode from the live pool, then calls ``super().forward``
    (the hooked base dispatch): one check per launch, at the base."""

    EXPECT, CONFIGS = "correct", ALL

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.addressing = "window" if _is_swa(self.token_to_kv_pool) else "dense"
        return super().forward(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch,
                    _translate(pool) if self.addressing == "window" else None)
        return q


STALE = (
    ModuleConstantVerdictAttnBackend, NegatedIntEnumAttnBackend, IfStatementVerdictAttnBackend,
    WeakKeyPlanAttnBackend,
    RegistryAttributeAttnBackend, PartialKeywordTableAttnBackend, PartialTupleArgAttnBackend,
    ListTupleDictAttnBackend, DictDictRecordAttnBackend, NamedTupleTranslatorAttnBackend,
    ClosureTableAttnBackend, MixinForwardAttnBackend, OverrideBoolVerdictAttnBackend,
)
CORRECT = (
    GeometryEnumAttnBackend, PerForwardRegistryAttnBackend, TargetPartialAttnBackend,
    PerForwardNestingAttnBackend, PerForwardTranslatorAttnBackend,
    SwaRecordUnsetBufferAttnBackend, PerForwardIfStatementAttnBackend,
    OverrideCallsBaseAttnBackend,
)
