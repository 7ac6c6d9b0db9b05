"""Two classes of stale state the generic check did not read, written by guard6 (not blind: its
author changed the check), each in forms nobody named and with correct twins.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses).

* A verdict kept as a value *indexed by* the SWA test, not chosen by a conditional: a module
  tuple indexed by ``isinstance`` (``MODES[isinstance(pool, SWAKVPool)]``); a pair display
  indexed by a local bound to a ``hasattr`` test (``(Kind.DENSE, Kind.WINDOW)[is_swa]``); a
  dict display keyed ``True``/``False``; a class-attribute dict indexed by ``bool(...)``; a
  module tuple indexed by ``int(not ...)``; the class's own methods in a pair indexed by the
  test (the launch path chosen once). Twins: the same table indexed by the model's geometry,
  the same index made again per forward (a value and a method).
* State in a registry reached through a getter that *computes* the lookup, not one
  subscript of ``id(self)``: a property building a tuple key; a property chaining two
  ``.get``s; a method taking only ``self`` that asks a module helper; a property indexing a
  module registry by a name the backend keeps. Twins: the same registry rewritten from the
  live pool per forward, and a getter with a side effect (it counts its calls), which the
  guard must never call.
"""

from __future__ import annotations

import enum
from types import SimpleNamespace

import guard_forms as gf

bb = gf.bb
scenario, launch = gf.scenario, gf.launch
SWAKVPool = bb.SWAKVPool
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
ALL = gf.ALL
SWAPPED = (FROZEN_KV, gf.OWN_SWA_DRAFT)

MODES = ("dense", "window")  # indexed by "is the pool SWA"
ADDRESSING = ("window", "dense")  # indexed by "is the pool not SWA"


def _is_swa(pool) -> bool:
    return isinstance(pool, SWAKVPool)


def _translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


class Kind(enum.Enum):
    DENSE = "dense"
    WINDOW = "window"


class _Base9(bb._DecodeOnly):
    """Keeps the runner's pool as ``token_to_kv_pool`` (what the FROZEN_KV swap rebinds) and
    translates SWA ids when ``self._windowed()`` says so."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size

    def _windowed(self) -> bool:
        return True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool) if self._windowed() else None)
        return q


# =========================================================================== stale: verdicts


class ModuleTupleVerdictAttnBackend(_Base9):
    """``self.mode = MODES[isinstance(pool, SWAKVPool)]``: the verdict read off a module tuple
    at the index the init-time pool's test gives ("dense" for a FROZEN_KV draft)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "mode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.mode = MODES[isinstance(model_runner.token_to_kv_pool, SWAKVPool)]

    def _windowed(self) -> bool:
        return self.mode == "window"


class LocalIndexedEnumAttnBackend(_Base9):
    """``is_swa = hasattr(pool, "swa_kv_pool")`` then ``(Kind.DENSE, Kind.WINDOW)[is_swa]``:
    an enum member picked from a pair display by a local holding a duck test."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kind"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        is_swa = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")
        self.kind = (Kind.DENSE, Kind.WINDOW)[is_swa]

    def _windowed(self) -> bool:
        return self.kind is Kind.WINDOW


class DictDisplayVerdictAttnBackend(_Base9):
    """``{True: "paged-window", False: "flat"}[is_swa]``: a dict display keyed by the test."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "layout"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self.layout = {True: "paged-window", False: "flat"}[is_swa]

    def _windowed(self) -> bool:
        return self.layout == "paged-window"


class ClassTableVerdictAttnBackend(_Base9):
    """``self.LAYOUTS[bool(_is_swa(pool))]``: a class-attribute dict indexed by ``bool()`` of
    a helper's verdict."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "read_layout"
    LAYOUTS = {False: "contiguous", True: "windowed"}

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.read_layout = self.LAYOUTS[bool(_is_swa(model_runner.token_to_kv_pool))]

    def _windowed(self) -> bool:
        return self.read_layout == "windowed"


class NegatedIndexVerdictAttnBackend(_Base9):
    """``ADDRESSING[int(not isinstance(pool, SWAKVPool))]``: a module tuple indexed by the
    negated test (index 1, "dense", for a FROZEN_KV draft's own pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "addressing"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.addressing = ADDRESSING[int(not isinstance(model_runner.token_to_kv_pool,
                                                        SWAKVPool))]

    def _windowed(self) -> bool:
        return self.addressing == "window"


class IndexedMethodChoiceAttnBackend(_Base9):
    """``(self._dense_decode, self._window_decode)[isinstance(pool, SWAKVPool)]``: the launch
    path, one of the class's own methods, picked once by indexing a pair with the test."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_decode_impl"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._decode_impl = (self._dense_decode, self._window_decode)[
            isinstance(model_runner.token_to_kv_pool, SWAKVPool)]

    def _dense_decode(self, layer, forward_batch):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch)

    def _window_decode(self, layer, forward_batch):
        pool = self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._decode_impl(layer, forward_batch)
        return q


# =========================================================================== stale: getters

_STATE: dict = {}  # (id(backend), what) -> state
_PLANS: dict = {}  # id(backend) -> {"kv": pool, ...}
_BY_KEY: dict = {}  # backend.plan_key -> plan


def _plan_of(backend):
    """A module helper computing the key, then looking the plan up."""
    return _BY_KEY.get(f"{type(backend).__name__}:{id(backend)}")


class TupleKeyPropertyAttnBackend(_Base9):
    """A property computing its key: ``key = (id(self), "kv")``, ``return _STATE[key]``; the
    entry holds the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv_view"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _STATE[(id(self), "kv")] = model_runner.token_to_kv_pool

    @property
    def kv_view(self):
        key = (id(self), "kv")
        return _STATE[key]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.kv_view, layer, forward_batch, _translate(self.kv_view))
        return q


class ChainedGetPropertyAttnBackend(_Base9):
    """``return _PLANS.get(id(self), {}).get("kv")``: two lookups chained; the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "planned_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _PLANS[id(self)] = {"kv": model_runner.token_to_kv_pool, "window": bb.WINDOW}

    @property
    def planned_pool(self):
        return _PLANS.get(id(self), {}).get("kv")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.planned_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


class HelperLookupMethodAttnBackend(_Base9):
    """A method taking only ``self`` (``self._plan()``) that asks a module helper, which
    computes the key and looks the plan up: the plan's ``translate`` is the init-time pool's
    bound method (None for a draft's own plain pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (gf.OWN_SWA_DRAFT,), "_plan().translate"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _BY_KEY[f"{type(self).__name__}:{id(self)}"] = SimpleNamespace(
            translate=_translate(model_runner.token_to_kv_pool))

    def _plan(self):
        return _plan_of(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch, self._plan().translate)
        return q


_VIEWS: dict = {}  # a view name -> its record


class NamedRegistryAttnBackend(_Base9):
    """``_VIEWS[self.view_name]``: a module registry indexed by a name the backend keeps (not
    ``id(self)``); the entry is a record of the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "view.pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.view_name = f"view-{id(self)}"
        _VIEWS[self.view_name] = SimpleNamespace(pool=model_runner.token_to_kv_pool)

    @property
    def view(self):
        return _VIEWS[self.view_name]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.view.pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


# =========================================================================== correct


class GeometryIndexedVerdictAttnBackend(_Base9):
    """``MODES[bb.WINDOW > 0]``: the same table indexed by the model's geometry (the same in
    every role); the pool is tested live per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.mode = MODES[bb.WINDOW > 0]

    def _windowed(self) -> bool:
        return self.mode == "window" and _is_swa(self.token_to_kv_pool)


class PerForwardIndexedVerdictAttnBackend(_Base9):
    """``MODES[isinstance(pool, SWAKVPool)]`` made again from the active pool by every
    metadata build (before the launch), as at ``__init__``."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.mode = MODES[isinstance(model_runner.token_to_kv_pool, SWAKVPool)]

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.mode = MODES[isinstance(self.token_to_kv_pool, SWAKVPool)]

    def _windowed(self) -> bool:
        return self.mode == "window"


class PerForwardIndexedChoiceAttnBackend(IndexedMethodChoiceAttnBackend):
    """The launch path picked by indexing with the test, in the metadata build only (the
    active pool's, every forward)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        _Base9.__init__(self, model_runner)

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self._decode_impl = (self._dense_decode, self._window_decode)[
            isinstance(self.token_to_kv_pool, SWAKVPool)]


class PerForwardComputedRegistryAttnBackend(TupleKeyPropertyAttnBackend):
    """The same computed-key registry, rewritten from the active pool by every metadata build."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        _STATE[(id(self), "kv")] = self.token_to_kv_pool


GETTER_CALLS = SimpleNamespace(count=0)


class CountingGetterAttnBackend(_Base9):
    """A getter with a side effect (it counts its calls) over the live pool: correct, and the
    guard must never call it (``GETTER_CALLS`` counts only the class's own reads)."""

    EXPECT, CONFIGS = "correct", ALL

    @property
    def counted_pool(self):
        GETTER_CALLS.count += 1
        return _STATE.get((id(self), "live"), self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.counted_pool
        bb._read_kv(pool, layer, forward_batch, _translate(pool))
        return q


STALE = (
    ModuleTupleVerdictAttnBackend, LocalIndexedEnumAttnBackend, DictDisplayVerdictAttnBackend,
    ClassTableVerdictAttnBackend, NegatedIndexVerdictAttnBackend, IndexedMethodChoiceAttnBackend,
    TupleKeyPropertyAttnBackend, ChainedGetPropertyAttnBackend, HelperLookupMethodAttnBackend,
    NamedRegistryAttnBackend,
)
CORRECT = (
    GeometryIndexedVerdictAttnBackend, PerForwardIndexedVerdictAttnBackend,
    PerForwardIndexedChoiceAttnBackend, PerForwardComputedRegistryAttnBackend,
    CountingGetterAttnBackend,
)


def cases():
    """``(cls, config)`` for every class and every configuration it is meant for."""
    return [(cls, config) for cls in STALE + CORRECT for config in cls.CONFIGS]
