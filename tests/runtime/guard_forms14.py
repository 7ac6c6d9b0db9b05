"""Backends no table of the guard names, written blind from the bug class by rt19 (the guard's
implementation unread while they were written): stale SWA state kept by Python machinery the
earlier sets do not use (class-creation hooks, metaclasses, decorators, strategy objects,
compiled closures, preallocated metadata, tensor dtypes), each with a correct twin.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses): each
class is built from the runner alone and launched by one decode under SGLang's own per-forward
swap for the FROZEN_KV drafts; ``EXPECT``, ``CONFIGS``, ``STALE_STATE`` as there.

Stale forms: an SWA id translator kept in the closure of a decorator on ``forward_decode``
(filled by a ``configure`` function the decorator factory returned); a verdict set after
``__init__`` by a wrapper a base class's ``__init_subclass__`` installed on every subclass; the
own pool's full->SWA map in a class-level cache keyed by the backend class; the window sub-pool
put in a kernel spec tuple by a metaclass's ``__call__`` after construction; a frozen dataclass
launch config built once from the runner, its SWA verdict a per-layer bitmask; a stateless index
strategy object chosen once; a kernel-argument builder object holding the pool's bound
translate as a field transform; a per-layer dispatch list of the backend's own bound methods
built at init from the init-time pool's layer map; a lazily built plan whose first fill happens
in ``__init__`` (a geometry read) and is never refreshed; a preallocated metadata object reused
across forwards, its batch fields rewritten in place but its SWA pool field never; a
``torch.compile``'d closure over the window sub-pool; a verdict encoded in an index buffer's
dtype chosen at init from the shared allocator (an EAGLE draft owning a full pool). Correct
twins: a decorator deciding the SWA ids per call from the live pool; a class-keyed cache of
geometry; a metaclass finishing backends with geometry; a strategy chosen again per forward; a
builder whose transform is a bound method of the backend reading the live pool; a compiled
function handed the live pool's buffer (closure: geometry); the preallocated metadata with its
SWA field rewritten per forward; a lazy plan validated against the live pool on every use.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from abc import ABCMeta
from types import SimpleNamespace

import guard_forms as gf
import torch
from guard_forms import is_swa as _is_swa

bb = gf.bb
FROZEN_KV, EAGLE, NON_SWA = bb.FROZEN_KV, bb.EAGLE, bb.NON_SWA
ALL, SWAPPED, OWN_SWA_DRAFT = gf.ALL, gf.SWAPPED, gf.OWN_SWA_DRAFT

MAX_BS = 8  # the largest decode batch the preallocated buffers hold


# =========================================================================== helpers


def _read(pool, layer, forward_batch, translate=None):
    return bb._read_kv(pool, layer, forward_batch, translate)


def _live_translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


def _read_window_or_full(live, window_pool, layer, forward_batch):
    """An SWA layer's K from ``window_pool`` (a sub-pool: its own layer index), a full layer's
    from the live pool; the ids translated through the live pool."""
    sub_layer, is_window = live.layers_mapping[layer.layer_id]
    if is_window:
        window_pool.get_key_buffer(sub_layer)
        return live.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
    return _read(live, layer, forward_batch)


# torch.compile as a backend author writes it; the eager backend keeps the CPU replay fast
# (dynamo still traces the function and keeps what its closure holds).
_compile = functools.partial(torch.compile, backend="eager", dynamic=False)


# =========================================================================== stale


def _swa_ids_decorator():
    """A decorator factory: the wrapper hands the decorated decode the SWA id translator kept
    in the factory's closure, which ``configure`` fills from a pool."""
    cell = {}

    def configure(pool):
        cell["swa_ids"] = pool.translate_loc_from_full_to_swa if _is_swa(pool) else None

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            return fn(self, q, k, v, layer, forward_batch, save_kv_cache,
                      swa_ids=cell.get("swa_ids"), **kwargs)

        return wrapper

    return decorate, configure


_with_swa_ids, _configure_swa_ids = _swa_ids_decorator()


class DecoratorCellAttnBackend(gf.KeepsPool):
    """``forward_decode`` is decorated with a wrapper handing it ``swa_ids`` from the decorator
    factory's closure, which ``__init__`` configured with the init-time pool: no translator for
    the draft's own full pool, the own SWA pool's bound translate for a draft owning one, while
    the launch reads the target's SWA pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "forward_decode"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        _configure_swa_ids(model_runner.token_to_kv_pool)

    @_with_swa_ids
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, *, swa_ids=None,
                       **kwargs):
        _read(self.token_to_kv_pool, layer, forward_batch, swa_ids)
        return q


class _FinishedBySubclassHook(gf.KeepsPool):
    """A base whose ``__init_subclass__`` wraps every subclass's own ``__init__`` so that the
    backend is finished (``_finish``) with the runner once the subclass's body ran."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        body = cls.__dict__.get("__init__")
        if body is None:
            return

        @functools.wraps(body)
        def __init__(self, model_runner, *args, **kw):
            body(self, model_runner, *args, **kw)
            if type(self) is cls:  # once, after the most derived body
                self._finish(model_runner)

        cls.__init__ = __init__

    def _finish(self, model_runner):
        self._ids_windowed = _is_swa(model_runner.token_to_kv_pool)


class SubclassHookVerdictAttnBackend(_FinishedBySubclassHook):
    """Its own ``__init__`` keeps geometry only; the hook its base's ``__init_subclass__``
    installed decides afterwards, from the runner's pool, whether the ids are windowed
    (``_ids_windowed``): False for the draft's own pool, the target's SWA pool read untranslated."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_ids_windowed"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.head_dim = model_runner.token_to_kv_pool.head_dim

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if self._ids_windowed else None)
        return q


class ClassKeyedMapCacheAttnBackend(gf.KeepsPool):
    """A class-level cache keyed by the backend class (``_swa_maps[type(self)]``: one map per
    backend kind) holding the init-time pool's full->SWA map: None for the draft's own full
    pool, the own SWA pool's map for a draft owning one; the launch indexes it for the target's
    SWA pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_swa_maps"
    _swa_maps: dict = {}

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        type(self)._swa_maps[type(self)] = pool.full_to_swa_index_mapping if _is_swa(pool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        swa_map = self._swa_maps[type(self)]
        loc = forward_batch.out_cache_loc
        _ = swa_map[loc] if swa_map is not None else loc  # the ids the kernel reads
        return q


class _KernelSpecMeta(ABCMeta):
    """Finishes every backend after its ``__init__``: the kernel spec (page size, window
    sub-pool) from the runner it was built with."""

    def __call__(cls, model_runner, *args, **kwargs):
        backend = super().__call__(model_runner, *args, **kwargs)
        pool = model_runner.token_to_kv_pool
        backend._kernel_spec = (model_runner.page_size, pool.swa_kv_pool if _is_swa(pool) else None)
        return backend


class MetaclassSpecAttnBackend(gf.KeepsPool, metaclass=_KernelSpecMeta):
    """A metaclass's ``__call__`` puts the window sub-pool of the init-time pool in a kernel
    spec tuple (``_kernel_spec[1]``) after construction: None for the draft's own full pool (the
    target's SWA pool read untranslated), the own SWA pool's window sub-pool for a draft owning
    one (the wrong pool's K read)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_kernel_spec"

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _, window_pool = self._kernel_spec
        live = self.token_to_kv_pool
        if window_pool is not None:
            _read_window_or_full(live, window_pool, layer, forward_batch)
        else:
            _read(live, layer, forward_batch)
        return q


@dataclasses.dataclass(frozen=True)
class DecodeLaunchConfig:
    """What the decode kernel is launched with, built once from the runner."""

    page_size: int
    head_dim: int
    windowed_layers: int  # bit i set: layer i's ids index the SWA pool

    @classmethod
    def from_runner(cls, model_runner) -> "DecodeLaunchConfig":
        pool = model_runner.token_to_kv_pool
        mask = 0
        if _is_swa(pool):
            for layer_id, (_, is_window) in pool.layers_mapping.items():
                mask |= int(is_window) << layer_id
        return cls(model_runner.page_size, pool.head_dim, mask)


class DataclassLaunchConfigAttnBackend(gf.KeepsPool):
    """A frozen dataclass launch config built once from the runner, its SWA verdict a per-layer
    bitmask (``launch_cfg.windowed_layers``): 0 for the draft's own full pool, so the target's
    SWA layers are read with full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "launch_cfg.windowed_layers"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.launch_cfg = DecodeLaunchConfig.from_runner(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        windowed = self.launch_cfg.windowed_layers >> layer.layer_id & 1
        _read(pool, layer, forward_batch, pool.translate_loc_from_full_to_swa if windowed else None)
        return q


class _DenseIds:
    """The kernel's ids are the full-pool ids."""

    def ids(self, pool, loc):
        return loc


class _WindowIds:
    """The kernel's ids are the SWA slots of the pool it is handed."""

    def ids(self, pool, loc):
        return pool.translate_loc_from_full_to_swa(loc)


_DENSE_IDS, _WINDOW_IDS = _DenseIds(), _WindowIds()


class StrategyOnceAttnBackend(gf.KeepsPool):
    """A stateless index strategy object chosen once from the init-time pool
    (``index_strategy``: dense for the draft's own full pool) and handed the live pool per
    launch: the target's SWA pool gets full-pool ids."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "index_strategy"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.index_strategy = _WINDOW_IDS if _is_swa(model_runner.token_to_kv_pool) else _DENSE_IDS

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        pool.get_key_buffer(layer.layer_id)
        self.index_strategy.ids(pool, forward_batch.out_cache_loc)
        return q


class _KernelArgBuilder:
    """Builds the paged kernel's arguments per forward, rewriting fields through the
    ``(field, function)`` transforms it was made with."""

    def __init__(self, page_size: int, transforms=()):
        self.page_size = page_size
        self.transforms = tuple(transforms)

    def build(self, forward_batch):
        args = {"kv_indices": forward_batch.out_cache_loc, "page_size": self.page_size,
                "batch_size": forward_batch.batch_size}
        for field, fn in self.transforms:
            args[field] = fn(args[field])
        return args


class KernelArgBuilderAttnBackend(gf.KeepsPool):
    """A kernel-argument builder object made at init with the init-time pool's bound translate
    as the ``kv_indices`` transform (``arg_builder.transforms``): none for the draft's own full
    pool, the own SWA pool's map for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "arg_builder.transforms"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        transforms = (("kv_indices", pool.translate_loc_from_full_to_swa),) if _is_swa(pool) else ()
        self.arg_builder = _KernelArgBuilder(self.page_size, transforms)

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = SimpleNamespace(kernel_args=self.arg_builder.build(forward_batch))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        self.forward_metadata.kernel_args["kv_indices"]  # the ids the kernel reads
        return q


class PerLayerDispatchAttnBackend(gf.KeepsPool):
    """A per-layer dispatch list built at init (``layer_kernels[layer_id]``: a bound method of
    the backend itself per layer) from the init-time pool's layer map: the draft's own full pool
    has no window layer, so the target's SWA layer 0 runs the dense kernel."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "layer_kernels[0]"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        layout = (pool.layers_mapping if _is_swa(pool)
                  else {i: (i, False) for i in range(pool.layer_num)})
        self.layer_kernels = [self._window_kernel if layout[i][1] else self._dense_kernel
                              for i in sorted(layout)]

    def _dense_kernel(self, layer, forward_batch):
        return _read(self.token_to_kv_pool, layer, forward_batch)

    def _window_kernel(self, layer, forward_batch):
        pool = self.token_to_kv_pool
        return _read(pool, layer, forward_batch, pool.translate_loc_from_full_to_swa)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.layer_kernels[layer.layer_id](layer, forward_batch)
        return q


class LazyPlanFilledAtInitAttnBackend(gf.KeepsPool):
    """A plan built lazily on first use (``self.plan``), never refreshed; the first use is in
    ``__init__`` (the workspace sized by the plan's head dim), so the plan's window sub-pool
    (``_plan.window_pool``) is the init-time pool's: None for the draft's own full pool, the own
    SWA pool's for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_plan.window_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._plan = None
        self.workspace = torch.empty(MAX_BS, self.plan.head_dim, dtype=torch.float32)

    @property
    def plan(self):
        if self._plan is None:
            pool = self.token_to_kv_pool
            self._plan = SimpleNamespace(
                head_dim=pool.head_dim, window_pool=pool.swa_kv_pool if _is_swa(pool) else None)
        return self._plan

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        window_pool = self.plan.window_pool
        live = self.token_to_kv_pool
        if window_pool is not None:
            _read_window_or_full(live, window_pool, layer, forward_batch)
        else:
            _read(live, layer, forward_batch)
        return q


class _DecodeMeta:
    """Decode metadata preallocated once (graph-safe buffers) and rewritten in place."""

    def __init__(self, max_bs: int, swa_pool):
        self.cache_seqlens = torch.zeros(max_bs, dtype=torch.int32)
        self.batch_size = 0
        self.swa_pool = swa_pool


class ReusedMetadataAttnBackend(gf.KeepsPool):
    """One preallocated metadata object reused across forwards: ``init_forward_metadata``
    rewrites its batch fields in place, but its SWA pool field (``decode_meta.swa_pool``) is the
    init-time one: None for the draft's own full pool, the own SWA pool for a draft owning one."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "decode_meta.swa_pool"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.decode_meta = _DecodeMeta(MAX_BS, pool if _is_swa(pool) else None)

    def init_forward_metadata(self, forward_batch):
        meta = self.decode_meta
        meta.batch_size = forward_batch.batch_size
        meta.cache_seqlens[: forward_batch.batch_size].copy_(forward_batch.seq_lens)
        self.forward_metadata = meta

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self.forward_metadata.swa_pool
        _read(self.token_to_kv_pool, layer, forward_batch,
              swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


def _make_window_gather(window_pool):
    def gather(sub_layer, ids):
        return window_pool.get_key_buffer(sub_layer)[ids]

    return gather


class CompiledWindowGatherAttnBackend(gf.KeepsPool):
    """A ``torch.compile``'d gather (``_window_gather``) whose closure captured the init-time
    window pool (the SWA sub-pool, or the whole pool of a model without one): the draft's own
    pool, or its own SWA sub-pool, gathered with the target's SWA slots."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "_window_gather"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        window_pool = pool.swa_kv_pool if _is_swa(pool) else pool
        self._window_gather = _compile(_make_window_gather(window_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        live = self.token_to_kv_pool
        if _is_swa(live):
            sub_layer, is_window = live.layers_mapping[layer.layer_id]
            if is_window:
                self._window_gather(sub_layer, live.translate_loc_from_full_to_swa(
                    forward_batch.out_cache_loc))
                return q
        _read(live, layer, forward_batch)
        return q


class IndexDtypeVerdictAttnBackend(gf.KeepsPool):
    """The kernel's index buffer allocated at init in the dtype of the index space it will hold
    (int32 SWA slots when the shared allocator's pool is hybrid, int64 full-pool ids otherwise);
    each launch translates iff ``kv_indices_buf.dtype`` is int32: an EAGLE draft owning a full
    pool translates its own ids through the target's map."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (EAGLE,), "kv_indices_buf"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        hybrid = _is_swa(self.token_to_kv_pool_allocator.get_kvcache())
        self.kv_indices_buf = torch.zeros(MAX_BS, dtype=torch.int32 if hybrid else torch.int64)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        loc = forward_batch.out_cache_loc
        if self.kv_indices_buf.dtype == torch.int32:
            loc = self.token_to_kv_pool_allocator.get_kvcache().translate_loc_from_full_to_swa(loc)
        self.kv_indices_buf[: loc.numel()].copy_(loc)
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return q


# =========================================================================== correct


def _live_swa_ids(fn):
    """A decorator handing the decode the SWA id translator of the pool live at the call; its
    closure keeps a launch counter per backend class, no pool state."""
    launches = collections.Counter()

    @functools.wraps(fn)
    def wrapper(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        launches[type(self).__name__] += 1
        return fn(self, q, k, v, layer, forward_batch, save_kv_cache,
                  swa_ids=_live_translate(self.token_to_kv_pool), **kwargs)

    return wrapper


class DecoratorLiveIdsAttnBackend(gf.KeepsPool):
    """``forward_decode`` decorated with a wrapper deciding ``swa_ids`` per call from the
    backend's live pool (the swapped one)."""

    EXPECT, CONFIGS = "correct", ALL

    @_live_swa_ids
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, *, swa_ids=None,
                       **kwargs):
        _read(self.token_to_kv_pool, layer, forward_batch, swa_ids)
        return q


class ClassKeyedGeometryAttnBackend(gf.KeepsPool):
    """A class-level cache keyed by the backend class holding geometry only (head dim, page
    size); the full->SWA map is read off the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL
    _geometry: dict = {}

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        type(self)._geometry[type(self)] = SimpleNamespace(head_dim=pool.head_dim,
                                                           page_size=model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        assert self._geometry[type(self)].page_size > 0
        pool = self.token_to_kv_pool
        pool.get_key_buffer(layer.layer_id)
        swa_map = pool.full_to_swa_index_mapping if _is_swa(pool) else None
        loc = forward_batch.out_cache_loc
        _ = swa_map[loc] if swa_map is not None else loc
        return q


class _GeometrySpecMeta(ABCMeta):
    """Finishes every backend after its ``__init__`` with geometry (page size, head dim)."""

    def __call__(cls, model_runner, *args, **kwargs):
        backend = super().__call__(model_runner, *args, **kwargs)
        backend._kernel_spec = (model_runner.page_size, model_runner.token_to_kv_pool.head_dim)
        return backend


class MetaclassGeometryAttnBackend(gf.KeepsPool, metaclass=_GeometrySpecMeta):
    """A metaclass's ``__call__`` finishing the backend with a geometry spec tuple; the window
    sub-pool is taken from the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        page_size, _ = self._kernel_spec
        assert page_size > 0
        live = self.token_to_kv_pool
        if _is_swa(live):
            _read_window_or_full(live, live.swa_kv_pool, layer, forward_batch)
        else:
            _read(live, layer, forward_batch)
        return q


class StrategyPerForwardAttnBackend(gf.KeepsPool):
    """The index strategy of StrategyOnce, chosen again from the live pool by each metadata
    build (under the swap), and handed the live pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._choose()

    def _choose(self):
        self.index_strategy = _WINDOW_IDS if _is_swa(self.token_to_kv_pool) else _DENSE_IDS

    def init_forward_metadata(self, forward_batch):
        self._choose()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        pool.get_key_buffer(layer.layer_id)
        self.index_strategy.ids(pool, forward_batch.out_cache_loc)
        return q


class LiveArgBuilderAttnBackend(gf.KeepsPool):
    """The kernel-argument builder of KernelArgBuilder, its ``kv_indices`` transform a bound
    method of the backend that translates through the live pool when it is hybrid."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.arg_builder = _KernelArgBuilder(self.page_size, (("kv_indices", self._swa_ids),))

    def _swa_ids(self, loc):
        translate = _live_translate(self.token_to_kv_pool)
        return translate(loc) if translate is not None else loc

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = SimpleNamespace(kernel_args=self.arg_builder.build(forward_batch))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        self.forward_metadata.kernel_args["kv_indices"]
        return q


def _make_rows_gather(head_dim: int):
    def gather(key_buffer, ids):
        return key_buffer[ids].reshape(-1, head_dim)

    return gather


class CompiledRowsGatherAttnBackend(gf.KeepsPool):
    """A ``torch.compile``'d gather whose closure holds geometry only (the head dim), handed
    the live pool's K buffer and the ids translated through the live pool per launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._rows_gather = _compile(_make_rows_gather(model_runner.token_to_kv_pool.head_dim))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        translate = _live_translate(pool)
        loc = forward_batch.out_cache_loc
        self._rows_gather(pool.get_key_buffer(layer.layer_id),
                          translate(loc) if translate is not None else loc)
        return q


class RefreshedMetadataAttnBackend(gf.KeepsPool):
    """The preallocated metadata object of ReusedMetadata, its SWA pool field rewritten from
    the live pool with the batch fields by each metadata build."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.decode_meta = _DecodeMeta(MAX_BS, pool if _is_swa(pool) else None)

    def init_forward_metadata(self, forward_batch):
        meta = self.decode_meta
        meta.batch_size = forward_batch.batch_size
        meta.cache_seqlens[: forward_batch.batch_size].copy_(forward_batch.seq_lens)
        pool = self.token_to_kv_pool
        meta.swa_pool = pool if _is_swa(pool) else None
        self.forward_metadata = meta

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self.forward_metadata.swa_pool
        _read(self.token_to_kv_pool, layer, forward_batch,
              swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class ValidatedLazyPlanAttnBackend(gf.KeepsPool):
    """The lazy plan of LazyPlanFilledAtInit (first filled in ``__init__`` too), validated on
    every use against the live pool it was built from (``plan.source is not`` the live pool:
    rebuilt), so the launch reads the swapped pool's window sub-pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._plan = None
        self.workspace = torch.empty(MAX_BS, self.plan.head_dim, dtype=torch.float32)

    @property
    def plan(self):
        pool = self.token_to_kv_pool
        if self._plan is None or self._plan.source is not pool:
            self._plan = SimpleNamespace(
                source=pool, head_dim=pool.head_dim,
                window_pool=pool.swa_kv_pool if _is_swa(pool) else None)
        return self._plan

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        plan = self.plan
        live = self.token_to_kv_pool
        if plan.window_pool is not None:
            _read_window_or_full(live, plan.window_pool, layer, forward_batch)
        else:
            _read(live, layer, forward_batch)
        return q


STALE = (
    DecoratorCellAttnBackend, SubclassHookVerdictAttnBackend, ClassKeyedMapCacheAttnBackend,
    MetaclassSpecAttnBackend, DataclassLaunchConfigAttnBackend, StrategyOnceAttnBackend,
    KernelArgBuilderAttnBackend, PerLayerDispatchAttnBackend, LazyPlanFilledAtInitAttnBackend,
    ReusedMetadataAttnBackend, CompiledWindowGatherAttnBackend, IndexDtypeVerdictAttnBackend,
)
CORRECT = (
    DecoratorLiveIdsAttnBackend, ClassKeyedGeometryAttnBackend, MetaclassGeometryAttnBackend,
    StrategyPerForwardAttnBackend, LiveArgBuilderAttnBackend, CompiledRowsGatherAttnBackend,
    RefreshedMetadataAttnBackend, ValidatedLazyPlanAttnBackend,
)
