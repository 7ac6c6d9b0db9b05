"""A fourth set of backends no guard table names (written by guard4), in launch styles the
other sets do not show, each stale form beside a correct look-alike.

Same contract as ``guard_forms`` (whose configurations, ``scenario`` and ``launch`` these
reuse). Launch styles: ``forward_decode`` dispatching through a dict of bound methods; a
wrapper delegating to inner backends kept in a ``collections.deque``; pools kept in a set;
the kernel launched from a CUDA-graph replay helper whose captured arguments are the K buffer
and the full->SWA mapping; indices translated through a mapping stored in a
``types.MappingProxyType``; an SWA verdict made two helper calls deep in another module, with
the launch going through two helpers there too; an int32 snapshot of the pool's own mapping
(never refreshed); which of its own methods every launch calls, chosen once by a pool type
test. Correct look-alikes: the same styles reading the live pool, a deque
wrapper handing the swapped pool on, sets of layer ids and a ``WeakSet`` of allocators, a
replay helper re-captured per forward, a converted mapping buffer refreshed in place per
forward, a geometry verdict two helpers deep, the method choice made again per forward or made
from the model's geometry.
"""

from __future__ import annotations

import collections
import types
import weakref

import guard_forms as gf
import guard_forms4_verdicts as verdicts
import torch

bb = gf.bb
SWAKVPool = bb.SWAKVPool
FROZEN_KV, OWN_SWA_DRAFT, TARGET, ALL = gf.FROZEN_KV, gf.OWN_SWA_DRAFT, gf.TARGET, gf.ALL
SWA_CONFIGS = (TARGET, FROZEN_KV, OWN_SWA_DRAFT)  # the launch reads an SWA pool


class _Base(gf._Base):
    """Reads the active pool's K buffer per launch (``guard_forms._Base``)."""


# --------------------------------------------------------------------------- stale


class _Kernels:
    """Decode and extend entry points over the SWA pool they were given."""

    def __init__(self, swa_pool, full_pool):
        self.swa_pool, self.full_pool = swa_pool, full_pool

    def decode(self, layer, forward_batch):
        pool = self.swa_pool if self.swa_pool is not None else self.full_pool
        pool.get_key_buffer(layer.layer_id)
        return forward_batch.out_cache_loc

    extend = decode


class DictDispatchAttnBackend(_Base):
    """``forward_decode`` dispatches through a dict of bound methods of a kernel helper that
    resolved the SWA pool at init: None for the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_dispatch['decode'].swa_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        kernels = _Kernels(bb._swa_or_none(pool), pool)
        self._dispatch = {"decode": kernels.decode, "extend": kernels.extend}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._dispatch["decode"](layer, forward_batch)
        return q


class DequeStepsAttnBackend(_Base):
    """A wrapper delegating to per-step inner backends kept in a ``deque`` (rotated per
    step); the swap rebinds only the wrapper's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_steps[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._steps = collections.deque(bb._InnerAttnBackend(model_runner) for _ in range(2))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self._steps[0].forward_decode(q, k, v, layer, forward_batch)


class PoolSetAttnBackend(_Base):
    """The pools it registered (for pinning) kept in a set; launches read from it."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_pinned"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pinned = {model_runner.token_to_kv_pool}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        for pool in self._pinned:
            bb._read_kv(pool, layer, forward_batch)
        return q


class _ReplayGraph:
    """A CUDA-graph replay helper: the kernel arguments captured at capture time (the K
    buffer view of layer 0, the full->SWA mapping) are what every replay launches on."""

    __slots__ = ("captured", "max_bs")

    def __init__(self, pool, max_bs):
        self.max_bs = max_bs
        mapping = getattr(pool, "full_to_swa_index_mapping", None)
        self.captured = (pool.get_key_buffer(0).view(-1, 8), mapping)

    def replay(self, forward_batch):
        k_view, mapping = self.captured
        loc = forward_batch.out_cache_loc
        return k_view[: forward_batch.batch_size], (mapping[loc] if mapping is not None else loc)


class GraphReplayHelperAttnBackend(_Base):
    """The decode kernel runs from a replay helper captured in ``init_cuda_graph_state``
    (at construction, before any swap): a hybrid draft with its own SWA pool replays on that
    pool's K buffer and mapping while the launch reads the target's."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "_graph.captured"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.init_cuda_graph_state(4, 4)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self._graph = _ReplayGraph(self.token_to_kv_pool, max_bs)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._graph.replay(forward_batch)
        return q


class StoredMappingTranslateAttnBackend(_Base):
    """Write ids translated through the full->SWA mapping stored at init in a read-only
    ``MappingProxyType``: the own SWA pool's mapping, not the target's."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "_maps['swa']"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self._maps = types.MappingProxyType({"swa": pool.full_to_swa_index_mapping})

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    swa_translate=self._maps["swa"].__getitem__)
        return q


class TwoHelperVerdictAttnBackend(_Base):
    """The SWA verdict made by a helper of another module that delegates it to a second
    helper (``verdicts.pages_split`` -> ``_kind_of``); the launch goes through two helpers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "split_kv"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.split_kv = verdicts.pages_split(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        verdicts.plan(self, layer, forward_batch)
        return q


class SnapshotMappingAttnBackend(_Base):
    """An int32 snapshot of the pool's own full->SWA mapping taken at init and never
    refreshed: the allocator updates the mapping in place, the snapshot stays as it was (wrong
    even on the target that owns the pool)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (TARGET,), "swa_loc_i32"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.swa_loc_i32 = mapping.to(torch.int32)


class _TwoPaths(_Base):
    """Two decode paths of the backend's own: one translating write ids into the SWA pool's
    space (read live), one passing them through."""

    def _swa_decode(self, layer, forward_batch):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    self.token_to_kv_pool.translate_loc_from_full_to_swa)

    def _plain_decode(self, layer, forward_batch):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._decode(layer, forward_batch)
        return q


class ChosenPathAttnBackend(_TwoPaths):
    """Which path every launch takes was chosen once, at init, by a type test of the
    init-time pool: the draft's own pool picks the plain path for the target's SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_decode is self._plain_decode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self._decode = self._swa_decode if isinstance(pool, SWAKVPool) else self._plain_decode


# --------------------------------------------------------------------------- correct


class PerForwardPathAttnBackend(_TwoPaths):
    """The same choice made again in ``init_forward_metadata``, from the pool that forward
    reads (and first at init)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._choose()

    def _choose(self):
        pool = self.token_to_kv_pool
        self._decode = self._swa_decode if isinstance(pool, SWAKVPool) else self._plain_decode

    def init_forward_metadata(self, forward_batch):
        self._choose()
        super().init_forward_metadata(forward_batch)


class GeometryPathAttnBackend(_TwoPaths):
    """A path chosen once from the model's geometry (a window exists), not from a pool; its
    windowed path still resolves the pool live."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        windowed = getattr(model_runner, "sliding_window_size", bb.WINDOW) is not None
        self._decode = self._window_decode if windowed else self._plain_decode

    def _window_decode(self, layer, forward_batch):
        swa = bb._swa_or_none(self.token_to_kv_pool)
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    swa.translate_loc_from_full_to_swa if swa is not None else None)


class LiveDictDispatchAttnBackend(_Base):
    """A dict of the backend's own bound methods; each resolves the SWA pool from the live
    pool per call."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._dispatch = {"decode": self._decode_live, "extend": self._decode_live}

    def _decode_live(self, layer, forward_batch):
        pool = self.token_to_kv_pool
        swa = bb._swa_or_none(pool)
        bb._read_kv(pool, layer, forward_batch,
                    swa.translate_loc_from_full_to_swa if swa is not None else None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._dispatch["decode"](layer, forward_batch)
        return q


class LiveDequeStepsAttnBackend(_Base):
    """Per-step inner backends in a ``deque``, handed the swapped pool by the wrapper's
    setter (the swap assigns ``token_to_kv_pool`` on the wrapper)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self._steps = collections.deque(bb.LivePropertyAttnBackend(model_runner)
                                        for _ in range(2))
        super().__init__(model_runner)

    @property
    def token_to_kv_pool(self):
        return self._steps[0].token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        for step in self._steps:
            step.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self._steps[0].forward_decode(q, k, v, layer, forward_batch)


class GeometrySetsAttnBackend(_Base):
    """Sets of layer ids (geometry), a set of warmed batch sizes and a ``WeakSet`` of the
    allocator: none of them a pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._window_layers = frozenset({0, 2})
        self._warmed = set()
        self._allocators = weakref.WeakSet([model_runner.token_to_kv_pool_allocator])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._warmed.add(forward_batch.batch_size)
        return super().forward_decode(q, k, v, layer, forward_batch)


class LiveGraphReplayAttnBackend(GraphReplayHelperAttnBackend):
    """The replay helper re-captured from the live pool in ``init_forward_metadata`` (as a
    graph runner re-captures when the pool changes), with an output buffer of its own."""

    EXPECT, CONFIGS = "correct", ALL

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        super().init_cuda_graph_state(max_bs, max_num_tokens)
        self._out = torch.zeros(max_bs, 2 * 8, dtype=torch.bfloat16)

    def init_forward_metadata(self, forward_batch):
        if self._graph.captured[0].untyped_storage().data_ptr() != (
                self.token_to_kv_pool.get_key_buffer(0).untyped_storage().data_ptr()):
            self._graph = _ReplayGraph(self.token_to_kv_pool, self._graph.max_bs)
        super().init_forward_metadata(forward_batch)


class LiveMappingTranslateAttnBackend(_Base):
    """Geometry in a ``MappingProxyType``; write ids translated through the live pool's
    mapping, copied per forward into an int32 buffer converted from it at init."""

    EXPECT, CONFIGS = "correct", (TARGET, OWN_SWA_DRAFT)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._geometry = types.MappingProxyType({"page": model_runner.page_size,
                                                 "window": bb.WINDOW})
        self.swa_loc_i32 = model_runner.token_to_kv_pool.full_to_swa_index_mapping.to(
            torch.int32)

    def init_forward_metadata(self, forward_batch):
        self.swa_loc_i32.copy_(self.token_to_kv_pool.full_to_swa_index_mapping)
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch,
                    swa_translate=self.swa_loc_i32.__getitem__)
        return q


class TwoHelperGeometryAttnBackend(_Base):
    """A window verdict two helpers deep that reads the model's geometry, not a pool; the
    launch goes through two helpers of another module."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.windowed = verdicts.pages_windowed(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        verdicts.plan(self, layer, forward_batch)
        return q


STALE = (
    DictDispatchAttnBackend, DequeStepsAttnBackend, PoolSetAttnBackend,
    GraphReplayHelperAttnBackend, StoredMappingTranslateAttnBackend,
    TwoHelperVerdictAttnBackend, SnapshotMappingAttnBackend, ChosenPathAttnBackend,
)
CORRECT = (
    LiveDictDispatchAttnBackend, LiveDequeStepsAttnBackend, GeometrySetsAttnBackend,
    LiveGraphReplayAttnBackend, LiveMappingTranslateAttnBackend, TwoHelperGeometryAttnBackend,
    PerForwardPathAttnBackend, GeometryPathAttnBackend,
)
