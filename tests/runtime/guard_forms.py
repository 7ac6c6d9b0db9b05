"""A second set of backends no guard table names, written by guard2 (not blind: its author
wrote the generic check), to attack it beyond ``blind_backends``.

Same contract as ``blind_backends``: each class subclasses SGLang's ``AttentionBackend``;
``EXPECT`` is ``"stale"`` or ``"correct"``, ``CONFIGS`` the configurations it is meant for
(``runtime_guard.demo.scenarios.CONFIGURATIONS`` plus ``OWN_SWA_DRAFT``: a FROZEN_KV MTP draft
of a hybrid model that owns an SWA pool of its own, swapped to the target's per forward), a
stale class's ``STALE_STATE`` the path a message names. Stale forms: a negated flag, a flag
from a type-name or ``hasattr`` test, an SWA table named neither pool nor mapping, the own SWA
pool's mapping tensor, per-layer readers capturing the pool in lambda defaults, a closure over
a record holding the pool, a bound method of a helper holding it, a weak reference, inner
backends in a dict, an SWA verdict in a NamedTuple. Correct look-alikes: closures over the
allocator, geometry flags named for windows (negated too), a geometry record, a memo keyed by
the live pool, a wrapper with inner backends in a dict that follows the swap, a target that
caches its own pool's mapping, a record rebuilt per forward, an SWA-named config bool, a
mapping-shaped workspace, class-level capability bools, a helper whose attribute reads raise.
"""

from __future__ import annotations

import contextlib
import weakref
from types import SimpleNamespace
from typing import NamedTuple, Optional

import blind_backends as bb
import torch

from runtime_guard.demo import scenarios as sc

SWAKVPool = bb.SWAKVPool
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
TARGET = "SWA target"
OWN_SWA_DRAFT = "FROZEN_KV draft, own SWA pool"
ALL = bb.ALL + (OWN_SWA_DRAFT,)
SWAPPED = (FROZEN_KV, OWN_SWA_DRAFT)  # the drafts SGLang swaps the active pool under


def is_swa(pool) -> bool:
    return isinstance(pool, SWAKVPool)


class KeepsPool(bb._DecodeOnly):
    """Keeps the runner's pool as ``token_to_kv_pool`` (what the FROZEN_KV swap rebinds); the
    base of every later set (their classes define their own launch)."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size


class _Base(KeepsPool):
    """Reads the active pool's K buffer per launch, like every launch does."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


# --------------------------------------------------------------------------- stale


class NegatedFlagAttnBackend(_Base):
    """``skip_window_translate = not isinstance(pool, SWAKVPool)``: True for the draft's own
    pool, so the SWA layers of the target's pool get full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "skip_window_translate"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.skip_window_translate = not isinstance(model_runner.token_to_kv_pool, SWAKVPool)


class TypeNameFlagAttnBackend(_Base):
    """A verdict from the pool's type name, under a name with no SWA word (``paged_split``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_split"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_split = type(model_runner.token_to_kv_pool).__name__ == "SWAKVPool"


class DuckTypedFlagAttnBackend(_Base):
    """A verdict from ``hasattr(pool, "translate_loc_from_full_to_swa")`` (duck typing)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "translates"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.translates = hasattr(model_runner.token_to_kv_pool, "translate_loc_from_full_to_swa")


class SwaTableAttnBackend(_Base):
    """The full->SWA table cached under a name that says neither pool nor mapping: None for
    the draft's own full pool, while the launch reads the target's SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "swa_loc_table"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.swa_loc_table = (pool.full_to_swa_index_mapping if isinstance(pool, SWAKVPool)
                              else None)


class OwnMappingTensorAttnBackend(_Base):
    """A hybrid draft with its own SWA pool caches that pool's mapping tensor; the launch reads
    the target's SWA pool, whose mapping is another tensor."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "index_mapping"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.index_mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping


class LayerReaderDefaultsAttnBackend(_Base):
    """Per-layer readers: lambdas that bind the init-time pool as a default argument."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "layer_readers[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.layer_readers = [lambda i=i, p=pool: p.get_key_buffer(i) for i in range(2)]


def _make_writer(state):
    def write(loc):
        return state.kv_pool.get_key_buffer(0), loc
    return write


class ClosureOverRecordAttnBackend(_Base):
    """A writer function closing over a record that holds the init-time pool (the record is
    kept nowhere else)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "write_kv.state.kv_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.write_kv = _make_writer(SimpleNamespace(kv_pool=model_runner.token_to_kv_pool))


class _IndicesUpdater:
    """A helper over the pool (like flashinfer's indices updaters)."""

    def __init__(self, pool):
        self.kv_pool = pool

    def update(self, loc):
        return self.kv_pool.get_key_buffer(0), loc


class HelperMethodAttnBackend(_Base):
    """Only a bound method of a helper is kept; the helper holds the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "update_indices.kv_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.update_indices = _IndicesUpdater(model_runner.token_to_kv_pool).update


class WeakPoolAttnBackend(_Base):
    """The init-time pool behind a ``weakref.ref`` (not to keep it alive)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_pool_ref"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pool_ref = weakref.ref(model_runner.token_to_kv_pool)


class DictInnerAttnBackend(_Base):
    """Inner backends kept in a dict by mode; the swap rebinds only the wrapper's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "backends['decode']"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.backends = {mode: bb._InnerAttnBackend(model_runner) for mode in ("decode", "extend")}


class SwaState(NamedTuple):
    enabled: bool
    pool: Optional[object]


class NamedTupleFlagAttnBackend(_Base):
    """The SWA verdict and pool in a NamedTuple (``swa_state.enabled``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "swa_state"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        swa = bb._swa_or_none(model_runner.token_to_kv_pool)
        self.swa_state = SwaState(swa is not None, swa)


class ClosureFlagAttnBackend(_Base):
    """A translate function reading the live pool, but gated on a verdict it captured from the
    init-time pool (``is_swa`` in its closure)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "translate.is_swa"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def translate(loc):
            live = self.token_to_kv_pool
            return live.translate_loc_from_full_to_swa(loc) if is_swa else loc

        self.translate = translate


class ClassFlagAttnBackend(_Base):
    """The verdict stored on the class (``type(self).paged_swa``) by each constructor."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged_swa"
    paged_swa = False

    def __init__(self, model_runner):
        super().__init__(model_runner)
        type(self).paged_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)


class ImportedVerdictAttnBackend(_Base):
    """The verdict made by a helper of another module, under a name with no SWA word."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "paged"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged = bb._swa_or_none(model_runner.token_to_kv_pool) is not None


class ConvertedMappingAttnBackend(_Base):
    """A hybrid draft converts its own SWA pool's mapping to int32 at init; the launch reads
    the target's SWA pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "swa_map_i32"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_map_i32 = model_runner.token_to_kv_pool.full_to_swa_index_mapping.to(torch.int32)


class ClassDictPoolAttnBackend(_Base):
    """The init-time pool kept in a dict on the class (``type(self).pools["kv"]``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "pools"
    pools: dict = {}

    def __init__(self, model_runner):
        super().__init__(model_runner)
        type(self).pools["kv"] = model_runner.token_to_kv_pool


class RecordInnerAttnBackend(_Base):
    """Inner backends kept in a namespace by mode; the swap rebinds only the wrapper's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "modes.decode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.modes = SimpleNamespace(decode=bb._InnerAttnBackend(model_runner))


# --------------------------------------------------------------------------- correct


class AllocatorClosureAttnBackend(_Base):
    """A translate function closing over the allocator, asking it for its pool per call."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        allocator = model_runner.token_to_kv_pool_allocator

        def translate(loc):
            pool = allocator.get_kvcache()
            return pool.translate_loc_from_full_to_swa(loc) if isinstance(pool, SWAKVPool) else loc

        self.translate = translate


class WindowGeometryAttnBackend(_Base):
    """Window geometry flags from the model's window size, one of them negated, and a
    geometry record: the same whichever pool is active."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        window = getattr(model_runner, "sliding_window_size", bb.WINDOW)
        self.use_window_attention = window is not None
        self.disable_sliding_window = window is None
        self.window_cfg = SimpleNamespace(enabled=window is not None, size=window)
        self.skip_prefill = False


class PoolMemoAttnBackend(_Base):
    """Tables memoised per pool, keyed by the live pool's id at each launch: the dict holds
    the draft's own pool and the target's, and looks up the active one."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._per_pool = {}

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        self._per_pool.setdefault(id(pool), SimpleNamespace(pool=pool, is_swa=isinstance(
            pool, SWAKVPool)))
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self._per_pool[id(self.token_to_kv_pool)].pool, layer, forward_batch)
        return q


class LiveDictWrapperAttnBackend(_Base):
    """Inner backends in a dict, handed the swapped pool by the wrapper's setter."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.backends = {mode: bb.LivePropertyAttnBackend(model_runner)
                         for mode in ("decode", "extend")}
        super().__init__(model_runner)

    @property
    def token_to_kv_pool(self):
        return self.backends["decode"].token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        for inner in self.backends.values():
            inner.token_to_kv_pool = pool


class OwnMappingTargetAttnBackend(OwnMappingTensorAttnBackend):
    """The same cached mapping on a target: its pool is never swapped, so it stays right."""

    EXPECT, CONFIGS = "correct", (TARGET,)


class PerForwardRecordAttnBackend(_Base):
    """An SWA record rebuilt in ``init_forward_metadata``, under the swap, every forward."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._refresh()

    def _refresh(self):
        swa = bb._swa_or_none(self.token_to_kv_pool)
        self.swa_state = SwaState(swa is not None, swa)

    def init_forward_metadata(self, forward_batch):
        self._refresh()
        super().init_forward_metadata(forward_batch)


class SwaConfigBoolAttnBackend(_Base):
    """An SWA-named bool that is configuration, not a pool verdict (no chunked SWA prefill),
    beside upstream's resolver (not meant for a draft owning an SWA pool: the resolver returns
    that pool, which the swap then leaves stale, and the guard says so)."""

    EXPECT, CONFIGS = "correct", bb.ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_chunked_prefill = False
        self._swa_kv_pool = bb.resolve_swa_kv_pool(model_runner)


class HelperBoundToBackendAttnBackend(_Base):
    """A helper holding a bound method of the backend itself and a weak reference to the
    allocator: neither is a pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.helper = SimpleNamespace(read=self._read, allocator=weakref.ref(
            model_runner.token_to_kv_pool_allocator))

    def _read(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id)


class CapabilityClassAttnBackend(_Base):
    """Class-level capability bools named for SWA, and a class registry of every instance
    (draft and target backends alike): declarations, not state decided from a pool."""

    EXPECT, CONFIGS = "correct", ALL
    folds_swa_replay: bool = False
    supports_swa_graphs: bool = False
    instances: list = []

    def __init__(self, model_runner):
        super().__init__(model_runner)
        type(self).instances.append(self)


class MappingWorkspaceAttnBackend(_Base):
    """A workspace shaped like the active pool's mapping, filled per launch (not a copy)."""

    EXPECT, CONFIGS = "correct", (TARGET,)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.swa_loc_workspace = torch.empty_like(pool.full_to_swa_index_mapping)


class _Touchy:
    """A helper whose attribute reads raise (a lazy proxy, an uninitialised binding)."""

    __slots__ = ("handle",)

    @property
    def state(self):
        raise RuntimeError("not bound yet")

    def __getattr__(self, name):
        raise RuntimeError(f"{name}: not bound yet")


class TouchyHelperAttnBackend(_Base):
    """Holds a helper whose every attribute read raises: the check must neither crash nor
    refuse (nothing it can read is a pool)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_helper = _Touchy()


STALE = (
    NegatedFlagAttnBackend, TypeNameFlagAttnBackend, DuckTypedFlagAttnBackend,
    SwaTableAttnBackend, OwnMappingTensorAttnBackend, LayerReaderDefaultsAttnBackend,
    ClosureOverRecordAttnBackend, HelperMethodAttnBackend, WeakPoolAttnBackend,
    DictInnerAttnBackend, NamedTupleFlagAttnBackend, ClosureFlagAttnBackend, ClassFlagAttnBackend,
    ImportedVerdictAttnBackend, ConvertedMappingAttnBackend, ClassDictPoolAttnBackend,
    RecordInnerAttnBackend,
)
CORRECT = (
    AllocatorClosureAttnBackend, WindowGeometryAttnBackend, PoolMemoAttnBackend,
    LiveDictWrapperAttnBackend, OwnMappingTargetAttnBackend, PerForwardRecordAttnBackend,
    SwaConfigBoolAttnBackend, HelperBoundToBackendAttnBackend, CapabilityClassAttnBackend,
    MappingWorkspaceAttnBackend, TouchyHelperAttnBackend,
)


def configuration(name: str):
    """(runner, the pool its launches read): ``scenarios.configuration``, plus a hybrid
    FROZEN_KV draft owning an SWA pool of its own."""
    if name != OWN_SWA_DRAFT:
        return sc.configuration(name)
    target, own = sc.swa_pool(), sc.swa_pool()
    sc.swa_allocator(own)  # the draft's own allocator registers its pool's full->SWA mapping
    return sc.runner(own, sc.swa_allocator(target), draft=True, spec="FROZEN_KV_MTP"), target


def scenario(cls, config: str) -> SimpleNamespace:
    runner, active = configuration(config)
    backend = cls(runner)
    batch = sc.decode_batch(active, [5, 3])
    return SimpleNamespace(cls=cls, config=config, runner=runner, active=active,
                           backend=backend, batch=batch)


def launch(run: SimpleNamespace, layer_id: int = 0):
    """One decode as SGLang runs it, under SGLang's own swap for both FROZEN_KV drafts; a class
    naming a ``DRIVE`` function is launched by it instead, under the same swap."""
    swapped = run.config in (FROZEN_KV, OWN_SWA_DRAFT)
    view = (sc.frozen_kv_view(run.batch, run.active, run.backend)
            if swapped and sc.backend_reads_own_pool() else
            bb._attribute_swap(run.backend, run.active) if swapped else contextlib.nullcontext())
    layer = sc.layer(layer_id)
    q = torch.zeros(run.batch.batch_size, 2 * 8, dtype=sc.DTYPE)
    k = v = torch.zeros(run.batch.batch_size, 1, 8, dtype=sc.DTYPE)
    with view:
        drive = getattr(run.cls, "DRIVE", None)  # a set's launch path other than a decode
        if drive is not None:
            return drive(run, q, k, v, layer)
        run.backend.init_forward_metadata(run.batch)
        return run.backend.forward(q, k, v, layer, run.batch)
