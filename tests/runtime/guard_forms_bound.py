"""Pool tests reached through helpers bound by assignment, written by gaps8: material for the
generic check's provenance (which attributes a class decides from an SWA pool test).

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses). The
verdict is made by a module-level name bound to a helper by an assignment, not a ``def`` or an
import: ``x = module.f`` (a helper of another module), an alias of that alias, ``x =
staticmethod(f)``, ``x = functools.partial(f, strict=True)``, and a name bound in one arm of a
conditional (``if``/``else`` whose other arm defines a fallback). Several of these names say
nothing about SWA (``_pool_is_windowed``, ``_layout_probe``): the helper they are bound to does.

Stale: a string verdict, a bool flag named for no window, an enum member, a flag from a
partial, the resolved SWA pool (``None`` for a FROZEN_KV draft's own pool) through the
conditional alias. Correct twins: the same aliases asked again per forward, through a live
property, over the allocator's pool, or bound to a geometry helper and to upstream's resolver.
"""

from __future__ import annotations

import enum
import functools
from typing import Optional

import guard_forms as gf

bb = gf.bb
SWAKVPool = bb.SWAKVPool
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
TARGET = gf.TARGET
ALL = gf.ALL

# -------------------------------------------------------------- helpers bound by assignment
_pool_is_windowed = gf.is_swa  # a helper of another module, under a name that says nothing
_split_probe = _pool_is_windowed  # an alias of that alias
_layout_probe = staticmethod(gf.is_swa)  # a staticmethod object at module level (callable)


def _swa_pages(pool, strict: bool = False) -> bool:
    """Whether ``pool`` splits its pages into full and SWA index spaces."""
    if strict:
        return isinstance(pool, SWAKVPool)
    return hasattr(pool, "full_to_swa_index_mapping")


_hybrid_pages = functools.partial(_swa_pages, strict=True)

if hasattr(bb, "_swa_or_none"):
    _window_view = bb._swa_or_none  # the branch taken: the helper of another module
else:  # pragma: no cover - a fallback no run takes

    def _window_view(pool):
        return None


def _window_of(model_runner) -> bool:
    """Geometry: the model has sliding-window layers (true in every role)."""
    return getattr(model_runner, "sliding_window_size", bb.WINDOW) is not None


_swa_geometry = _window_of  # an SWA-named alias of a geometry helper
_resolved_swa = staticmethod(bb.resolve_swa_kv_pool)  # upstream's resolver, through the allocator


class _Layout(enum.Enum):
    DENSE = "dense"
    WINDOWED = "windowed"


def _launch(backend, layer, forward_batch, translate: bool):
    pool = backend.token_to_kv_pool
    bb._read_kv(pool, layer, forward_batch,
                pool.translate_loc_from_full_to_swa if translate else None)


_Bound = gf.KeepsPool


# =========================================================================== stale


class AttrAliasVerdictAttnBackend(_Bound):
    """``read_mode = "windowed" if _pool_is_windowed(pool) else "dense"``, the helper bound as
    ``gf.is_swa``: "dense" for a FROZEN_KV draft's own pool, so SWA layers get full ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "read_mode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.read_mode = "windowed" if _pool_is_windowed(model_runner.token_to_kv_pool) else (
            "dense")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.read_mode == "windowed")
        return q


class ChainedAliasFlagAttnBackend(_Bound):
    """A bool ``paged_split`` (no SWA word) from an alias of an alias of ``gf.is_swa``."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_split"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_split = _split_probe(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.paged_split)
        return q


class StaticmethodEnumAttnBackend(_Bound):
    """An enum layout picked by ``_layout_probe = staticmethod(gf.is_swa)``."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "layout"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.layout = (_Layout.WINDOWED if _layout_probe(model_runner.token_to_kv_pool)
                       else _Layout.DENSE)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.layout is _Layout.WINDOWED)
        return q


class PartialFlagAttnBackend(_Bound):
    """``hybrid = _hybrid_pages(pool)``, a ``functools.partial`` of this module's pool test."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "hybrid"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.hybrid = _hybrid_pages(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.hybrid)
        return q


class ConditionalAliasPoolAttnBackend(_Bound):
    """``paged_view = _window_view(pool)``, the name bound in an ``if`` arm to
    ``bb._swa_or_none`` (its ``else`` defines a fallback): ``None`` for a FROZEN_KV draft."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_view"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_view = _window_view(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        view = self.paged_view
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    view.translate_loc_from_full_to_swa if view is not None else None)
        return q


# ========================================================================== correct


class AttrAliasPerForwardAttnBackend(_Bound):
    """The same string verdict, decided again in ``init_forward_metadata`` under the swap."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.read_mode = "windowed" if _pool_is_windowed(self.token_to_kv_pool) else "dense"

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.read_mode == "windowed")
        return q


class ChainedAliasLiveAttnBackend(_Bound):
    """``paged_split`` a property over the live pool, through the alias of an alias."""

    EXPECT, CONFIGS = "correct", ALL

    @property
    def paged_split(self) -> bool:
        return _split_probe(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.paged_split)
        return q


class StaticmethodResolvedAttnBackend(_Bound):
    """``_swa_kv_pool`` from upstream's resolver bound as ``staticmethod(...)``, an enum layout
    mirroring it: the allocator's SWA pool for a FROZEN_KV draft, what the swap installs (a
    draft owning an SWA pool of its own would keep that one: not meant for it)."""

    EXPECT, CONFIGS = "correct", bb.ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._swa_kv_pool: Optional[SWAKVPool] = _resolved_swa(model_runner)
        self.layout = _Layout.WINDOWED if self._swa_kv_pool is not None else _Layout.DENSE

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.layout is _Layout.WINDOWED)
        return q


class PartialAllocatorAttnBackend(_Bound):
    """``hybrid`` from the partial over the allocator's pool (what a FROZEN_KV draft's swap
    installs); meant where the allocator's pool is the one launched on."""

    EXPECT, CONFIGS = "correct", (FROZEN_KV, TARGET, NON_SWA)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.hybrid = _hybrid_pages(model_runner.token_to_kv_pool_allocator.get_kvcache())

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _launch(self, layer, forward_batch, self.hybrid)
        return q


class GeometryAliasAttnBackend(_Bound):
    """``swa_layers`` from ``_swa_geometry``, an SWA-named alias of a geometry helper: the
    model has window layers in every role; the pool is read live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_layers = _swa_geometry(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        assert self.swa_layers
        _launch(self, layer, forward_batch, gf.is_swa(self.token_to_kv_pool))
        return q


STALE = (
    AttrAliasVerdictAttnBackend, ChainedAliasFlagAttnBackend, StaticmethodEnumAttnBackend,
    PartialFlagAttnBackend, ConditionalAliasPoolAttnBackend,
)
CORRECT = (
    AttrAliasPerForwardAttnBackend, ChainedAliasLiveAttnBackend, StaticmethodResolvedAttnBackend,
    PartialAllocatorAttnBackend, GeometryAliasAttnBackend,
)
