"""A third set of backends no guard table names (written by guard3), beside ``blind_backends``
and ``guard_forms``: stale state in places neither shows, and a correct look-alike for each.

Same contract as ``guard_forms`` (whose configurations, ``scenario`` and ``launch`` these
reuse): each class subclasses SGLang's ``AttentionBackend``; ``EXPECT`` is ``"stale"`` or
``"correct"``, ``CONFIGS`` the configurations it is meant for, a stale class's ``STALE_STATE``
the path a message names. Where the stale state lives: a helper's property over its private
slot, a ``functools.partial`` of a pool method in a dict, a descriptor object on the class,
the backend's own ``__slots__``, a frozen slotted dataclass, a class made by a factory whose
methods close over the pool, inner backends built from the runner inside a record, a metadata
builder's bound method in a list, a CUDA-graph buffer that is the own pool's mapping, per-layer
lists of sub-pools, a verdict stored by a mixin under multiple inheritance, a pool method behind
``functools.lru_cache`` (over a pool method or a closure), a property made by a factory closing
over the pool; correct look-alikes for each, and class-level utilities (a lock, a logger, an
enum member, a descriptor raising on class access).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import logging
import threading
from types import SimpleNamespace

import guard_forms as gf

bb = gf.bb
SWAKVPool = bb.SWAKVPool
FROZEN_KV, OWN_SWA_DRAFT, ALL = gf.FROZEN_KV, gf.OWN_SWA_DRAFT, gf.ALL


class _Base(gf._Base):
    """Reads the active pool's K buffer per launch (``guard_forms._Base``)."""


# --------------------------------------------------------------------------- stale


class _PoolView:
    """A helper exposing the pool it was given through a property over a private slot."""

    def __init__(self, pool):
        self._kv = pool

    @property
    def pool(self):
        return self._kv


class HelperPropertyAttnBackend(_Base):
    """Reads ``self.view.pool`` per launch: a property of a helper over the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "view._kv"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.view = _PoolView(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.view.pool.get_key_buffer(layer.layer_id)
        return q


class PartialInDictAttnBackend(_Base):
    """Readers by name: ``functools.partial`` of the init-time pool's bound methods, in a dict."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "readers['k']"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.readers = {"k": functools.partial(pool.get_key_buffer),
                        "v": functools.partial(pool.get_value_buffer)}


class _PoolSlot:
    """A descriptor object on the class that keeps the last pool assigned through it."""

    def __init__(self):
        self.value = None

    def __get__(self, obj, owner=None):
        return self if obj is None else self.value

    def __set__(self, obj, value):
        self.value = value


class DescriptorPoolAttnBackend(_Base):
    """``self.kv = pool`` goes through a descriptor on the class that keeps it in itself: one
    constructor's pool for every instance, never the swapped one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kv"
    kv = _PoolSlot()

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv.get_key_buffer(layer.layer_id)
        return q


class SlotsPoolAttnBackend(_Base):
    """The backend's own ``__slots__`` hold the SWA sub-pool (slots live outside ``__dict__``)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "window_pool"
    __slots__ = ("window_pool",)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.window_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else pool


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    pool: object
    page_size: int


class FrozenSlottedRecordAttnBackend(_Base):
    """A frozen, slotted dataclass (no ``__dict__``) holding the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "plan.pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.plan = _Plan(model_runner.token_to_kv_pool, model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.plan.pool.get_key_buffer(layer.layer_id)
        return q


def _class_for(pool):
    """A class factory: each class's launch method closes over the pool it was made for."""

    class _Made(_Base):
        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            pool.get_key_buffer(layer.layer_id)
            return q

    return _Made


class ClassFactoryAttnBackend(_Base):
    """Built through a factory per runner: its ``forward_decode`` closes over the init-time pool
    (the instance becomes one of the made class)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "forward_decode"

    def __new__(cls, model_runner):
        made = type(cls.__name__, (_class_for(model_runner.token_to_kv_pool), cls), {})
        return object.__new__(made)

    def __init__(self, model_runner):
        super().__init__(model_runner)


class RunnerInnerRecordAttnBackend(_Base):
    """Inner backends built from the runner, kept in a tuple inside a record: the swap rebinds
    only the wrapper's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "stages.chain[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.stages = SimpleNamespace(chain=(bb._InnerAttnBackend(model_runner),))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.stages.chain[0].forward_decode(q, k, v, layer, forward_batch)


class _MetadataBuilder:
    """Builds per-forward metadata against the pool it was given."""

    def __init__(self, pool):
        self.pool = pool

    def build(self, forward_batch):
        return self.pool.get_key_buffer(0), forward_batch.out_cache_loc


class BuilderMethodListAttnBackend(_Base):
    """Metadata builders kept as bound methods in a list; each builder holds the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "builders[0].pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.builders = [_MetadataBuilder(model_runner.token_to_kv_pool).build]

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.forward_metadata.built = [build(forward_batch) for build in self.builders]


class GraphMappingBufferAttnBackend(_Base):
    """A hybrid draft with its own SWA pool keeps that pool's mapping as the CUDA-graph
    translation buffer (``init_cuda_graph_state`` runs at construction, before any swap)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (OWN_SWA_DRAFT,), "graph_swa_loc"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.init_cuda_graph_state(4, 4)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_swa_loc = self.token_to_kv_pool.full_to_swa_index_mapping


class LayerSubPoolListAttnBackend(_Base):
    """Per-layer ``(index, sub-pool)`` pairs in a list, built from the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "layer_pools[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.layer_pools = [(index, pool.swa_kv_pool if is_swa else pool.full_kv_pool)
                                for _, (index, is_swa) in sorted(pool.layers_mapping.items())]
        else:
            self.layer_pools = [(i, pool) for i in range(pool.layer_num)]


class _PagedMixin:
    """A mixin (no backend) storing a verdict under a name with no SWA word."""

    def _setup_paging(self, pool):
        self.split_pages = isinstance(pool, SWAKVPool)


class MixinVerdictAttnBackend(_PagedMixin, _Base):
    """Multiple inheritance: the pool verdict is stored by the mixin's method."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "split_pages"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._setup_paging(model_runner.token_to_kv_pool)


class CachedReaderAttnBackend(_Base):
    """A pool method behind ``functools.lru_cache`` (its ``__wrapped__`` is the bound method)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "key_of"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.key_of = functools.lru_cache(maxsize=8)(model_runner.token_to_kv_pool.get_key_buffer)


class CachedClosureAttnBackend(_Base):
    """``functools.lru_cache`` over a closure that captured the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "pages_of"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool

        @functools.lru_cache(maxsize=8)
        def pages_of(layer_id):
            return pool.get_key_buffer(layer_id).shape[0]

        self.pages_of = pages_of


def _with_pool_property(cls, pool):
    """A class factory adding a property that returns the pool it closes over."""
    return type(cls.__name__, (cls,), {"kv_cache": property(lambda self: pool)})


class FactoryPropertyAttnBackend(_Base):
    """A factory-made class whose ``kv_cache`` property closes over the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kv_cache"

    def __new__(cls, model_runner):
        return object.__new__(_with_pool_property(cls, model_runner.token_to_kv_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv_cache.get_key_buffer(layer.layer_id)
        return q


# --------------------------------------------------------------------------- correct


class _LiveView:
    """A helper whose property reads the backend's pool when read."""

    def __init__(self, backend):
        self.backend = backend

    @property
    def pool(self):
        return self.backend.token_to_kv_pool


class LiveHelperPropertyAttnBackend(_Base):
    """``self.view.pool`` reads the live pool through the backend."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.view = _LiveView(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.view.pool.get_key_buffer(layer.layer_id)
        return q


def _read_key(pool, layer_id):
    return pool.get_key_buffer(layer_id)


class PartialOverAllocatorAttnBackend(_Base):
    """Partials over the allocator's ``get_kvcache`` and over a function handed the live pool
    per call: no pool is bound."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        allocator = model_runner.token_to_kv_pool_allocator
        self.readers = {"kvcache": functools.partial(allocator.get_kvcache),
                        "key": functools.partial(_read_key)}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.readers["key"](self.token_to_kv_pool, layer.layer_id)
        return q


class _LivePoolDescriptor:
    """A descriptor reading the instance's own pool (it keeps nothing)."""

    def __get__(self, obj, owner=None):
        return self if obj is None else obj.token_to_kv_pool


class LiveDescriptorAttnBackend(_Base):
    """``self.kv`` is a descriptor over ``self.token_to_kv_pool``: it follows the swap."""

    EXPECT, CONFIGS = "correct", ALL
    kv = _LivePoolDescriptor()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv.get_key_buffer(layer.layer_id)
        return q


class SlotsGeometryAttnBackend(_Base):
    """``__slots__`` holding geometry and the allocator (which resolvers consult)."""

    EXPECT, CONFIGS = "correct", ALL
    __slots__ = ("window", "allocator", "swa_head_dim")

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.window = bb.WINDOW
        self.allocator = model_runner.token_to_kv_pool_allocator
        self.swa_head_dim = model_runner.token_to_kv_pool.head_dim


@dataclasses.dataclass(frozen=True, slots=True)
class _Geometry:
    window: int
    sliding: bool
    page_size: int


class FrozenGeometryAttnBackend(_Base):
    """A frozen, slotted geometry record from the model (a window exists): no pool in it."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.geometry = _Geometry(bb.WINDOW, True, model_runner.page_size)


def _class_for_window(window):
    class _Made(_Base):
        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            return q if window else q  # a window-specialised kernel would be picked here

    return _Made


class WindowClassFactoryAttnBackend(_Base):
    """A factory-made class per model window size: its launch closes over geometry only."""

    EXPECT, CONFIGS = "correct", ALL

    def __new__(cls, model_runner):
        return object.__new__(type(cls.__name__, (_class_for_window(bb.WINDOW), cls), {}))

    def __init__(self, model_runner):
        super().__init__(model_runner)


class LiveInnerRecordAttnBackend(_Base):
    """Inner backends in a record that read the wrapper's pool live (properties)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.stages = SimpleNamespace(chain=(bb.LivePropertyAttnBackend(model_runner),))

    @property
    def token_to_kv_pool(self):
        return self.stages.chain[0].token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        if "stages" in self.__dict__:
            for inner in self.stages.chain:
                inner.token_to_kv_pool = pool


class _LiveBuilder:
    """A metadata builder handed the pool on every call."""

    def build(self, pool, forward_batch):
        return pool.get_key_buffer(0), forward_batch.out_cache_loc


class PerCallBuilderAttnBackend(_Base):
    """Builders' bound methods in a list; each gets the live pool per forward."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.builders = [_LiveBuilder().build]

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.forward_metadata.built = [b(self.token_to_kv_pool, forward_batch)
                                       for b in self.builders]


class GraphWorkspaceAttnBackend(_Base):
    """CUDA-graph buffers sized from the pool and filled per replay: workspaces, not state."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.init_cuda_graph_state(4, 4)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        import torch

        self.graph_loc = torch.zeros(max_num_tokens, dtype=torch.int64)
        self.graph_pages = torch.zeros(max_bs, self.token_to_kv_pool.size // self.page_size + 1,
                                       dtype=torch.int32)


class LayerMaskAttnBackend(_Base):
    """A per-layer list of "is this a sliding-window layer" bools from the model's geometry
    (the same in every pool), and the layer count."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.swa_layer_mask = [layer_id % 2 == 0 for layer_id in range(2)]
        self.num_layers = 2


class _GeometryMixin:
    """A mixin storing model geometry."""

    def _setup_window(self):
        self.sliding_window_enabled = bb.WINDOW is not None


class MixinGeometryAttnBackend(_GeometryMixin, _Base):
    """Multiple inheritance: the mixin stores a window flag from the model's geometry."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._setup_window()


class _RaisingOnClass:
    """A descriptor whose class-level read raises (an unbound lazy attribute)."""

    def __get__(self, obj, owner=None):
        if obj is None:
            raise RuntimeError("bound per instance")
        return obj.token_to_kv_pool


class ClassUtilitiesAttnBackend(_Base):
    """Class attributes that are objects but hold no pool: a lock, a logger, an enum member, a
    descriptor whose class-level read raises."""

    EXPECT, CONFIGS = "correct", ALL
    lock = threading.Lock()
    log = logging.getLogger("guard_forms3")
    mode = enum.Enum("Mode", "DECODE EXTEND").DECODE
    live_kv = _RaisingOnClass()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        with self.lock:
            self.live_kv.get_key_buffer(layer.layer_id)
        return q


class CachedLiveReaderAttnBackend(_Base):
    """``functools.lru_cache`` over a method of the backend itself (reads the live pool)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.layer_kind = functools.lru_cache(maxsize=8)(self._layer_kind)

    def _layer_kind(self, layer_id):
        return type(self.token_to_kv_pool).__name__


STALE = (
    HelperPropertyAttnBackend, PartialInDictAttnBackend, DescriptorPoolAttnBackend,
    SlotsPoolAttnBackend, FrozenSlottedRecordAttnBackend, ClassFactoryAttnBackend,
    RunnerInnerRecordAttnBackend, BuilderMethodListAttnBackend, GraphMappingBufferAttnBackend,
    LayerSubPoolListAttnBackend, MixinVerdictAttnBackend, CachedReaderAttnBackend,
    CachedClosureAttnBackend, FactoryPropertyAttnBackend,
)
CORRECT = (
    LiveHelperPropertyAttnBackend, PartialOverAllocatorAttnBackend, LiveDescriptorAttnBackend,
    SlotsGeometryAttnBackend, FrozenGeometryAttnBackend, WindowClassFactoryAttnBackend,
    LiveInnerRecordAttnBackend, PerCallBuilderAttnBackend, GraphWorkspaceAttnBackend,
    LayerMaskAttnBackend, MixinGeometryAttnBackend, ClassUtilitiesAttnBackend,
    CachedLiveReaderAttnBackend,
)
