"""Hand-written attention backends no guard table names: material for the generic runtime guard.

Written blind from the bug class, the way a new backend's author would: each class subclasses
SGLang's ``AttentionBackend`` and keeps its SWA state somewhere of its own. ``EXPECT`` says
whether that state goes stale (``"stale"``) or stays right (``"correct"``); ``CONFIGS`` names
the ``runtime_guard.demo.scenarios.CONFIGURATIONS`` the class is meant for: a stale class must
be refused at launch in each of them, a correct one must launch in each of them. The docstring
says what is stale, or why a look-alike is not; a stale class's ``STALE_STATE`` names the stale
attribute as a message should (a dotted path from the backend, ``[key]`` for a container item).

``scenario(cls, config)`` builds a backend with its ``build_*`` function from a runner-like
object holding real SGLang pools and allocators (``scenarios.configuration``); ``launch(run)``
then runs one decode the way SGLang does: under SGLang's own ``frozen_kv_target_view`` for a
FROZEN_KV draft (the per-forward pool swap), ``init_forward_metadata`` and then
``AttentionBackend.forward``, the dispatch a generic guard hooks. Needs torch and SGLang on the
CPU; the launches read pool buffers but run no kernel.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from types import SimpleNamespace
from typing import Callable, Dict, Optional

import torch

from runtime_guard.demo import scenarios as sc

sc.sglang()  # the CPU-safe import of SGLang first: the imports below then find it loaded
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend  # noqa: E402
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool  # noqa: E402

SWATokenToKVPoolAllocator = sc.sglang().SWATokenToKVPoolAllocator
ALL = sc.CONFIGURATIONS
FROZEN_KV = "FROZEN_KV draft"
EAGLE = "EAGLE draft, own pool"
NON_SWA = "non-SWA model"
WINDOW = 8  # the model's sliding window; geometry, the same whichever pool is active


def _read_kv(pool, layer, forward_batch, swa_translate: Optional[Callable] = None):
    """What a launch reads: the layer's K buffer of ``pool`` and the (translated) write ids."""
    pool.get_key_buffer(layer.layer_id)
    loc = forward_batch.out_cache_loc
    return swa_translate(loc) if swa_translate is not None else loc


def _swa_or_none(pool) -> Optional[SWAKVPool]:
    return pool if isinstance(pool, SWAKVPool) else None


def resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
    """Upstream's resolver (PR #27491): the active pool, None for a draft that is not FROZEN_KV
    MTP, else the allocator's pool."""
    active = model_runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    get_kvcache = getattr(model_runner.token_to_kv_pool_allocator, "get_kvcache", None)
    return _swa_or_none(get_kvcache()) if get_kvcache is not None else None


class _DecodeOnly(AttentionBackend):
    """Shared plumbing: metadata is a no-op and extend runs the decode path."""

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = SimpleNamespace(batch_size=forward_batch.batch_size)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)


# --------------------------------------------------------------------------- stale


class NestedSubPoolAttnBackend(_DecodeOnly):
    """The SWA sub-pool (or the whole pool on a plain model) kept on a nested state object:
    the draft's own pool after the FROZEN_KV swap."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "kv_state.window_pool"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        window_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else pool
        self.kv_state = SimpleNamespace(window_pool=window_pool, window=WINDOW)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv_state.window_pool.get_key_buffer(0)
        return q


class BoundReaderAttnBackend(_DecodeOnly):
    """A bound method of the init-time pool (``pool.get_key_buffer``) used by every launch."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "_key_buffer"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._key_buffer = model_runner.token_to_kv_pool.get_key_buffer

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._key_buffer(layer.layer_id)
        return q


class LayerPoolDictAttnBackend(_DecodeOnly):
    """A dict of per-layer pools (the SWA or full sub-pool of each layer) built in ``__init__``."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "layer_pools[0]"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.layer_pools: Dict[int, object] = {
                layer_id: (pool.swa_kv_pool if is_swa else pool.full_kv_pool)
                for layer_id, (_, is_swa) in pool.layers_mapping.items()
            }
        else:
            self.layer_pools = {layer_id: pool for layer_id in range(pool.layer_num)}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.layer_pools[layer.layer_id]
        return q


class RenamedFlagAttnBackend(_DecodeOnly):
    """The pool is resolved right, but a flag under another name (``window_kv_enabled``) was
    decided from the init-time pool's type: False for the draft, while it reads an SWA pool."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "window_kv_enabled"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)
        self.window_kv_enabled = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        translate = swa.translate_loc_from_full_to_swa if self.window_kv_enabled else None
        _read_kv(self.token_to_kv_pool, layer, forward_batch, translate)
        return q


class DraftBlindResolverAttnBackend(_DecodeOnly):
    """A resolver that asks the allocator but forgets the draft check: an EAGLE draft that owns
    a full pool gets the target's SWA pool (and its mapping) to translate against."""

    EXPECT, CONFIGS = "stale", (EAGLE,)
    STALE_STATE = "_swa_kv_pool"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        active = model_runner.token_to_kv_pool
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        self._swa_kv_pool = _swa_or_none(active) or _swa_or_none(kvcache)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        _read_kv(self.token_to_kv_pool, layer, forward_batch,
                 swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class _InnerAttnBackend(_DecodeOnly):
    """An inner backend deciding its SWA pool from the pool it was built with."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = _swa_or_none(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


class InnerBackendWrapperAttnBackend(_DecodeOnly):
    """A prefill/decode wrapper (like HybridAttnBackend): the swap rebinds the wrapper's
    ``token_to_kv_pool`` only; the inner backends keep the draft's pool and its SWA verdict."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "decode_backend.token_to_kv_pool"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.prefill_backend = _InnerAttnBackend(model_runner)
        self.decode_backend = _InnerAttnBackend(model_runner)

    def init_forward_metadata(self, forward_batch):
        self.decode_backend.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class _LocalAttnBuilder:
    """A helper object outliving ``__init__`` (like FA's local-attention builder)."""

    def __init__(self, chunk_size: int, swa_translate: Optional[Callable] = None):
        self.attention_chunk_size = chunk_size
        self.swa_translate = swa_translate


class ClosureTranslateAttnBackend(_DecodeOnly):
    """A translate function handed to a helper object, closing over the init-time pool."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "local_attn_builder.swa_translate"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool

        def swa_translate(loc):
            if isinstance(pool, SWAKVPool):
                return pool.translate_loc_from_full_to_swa(loc)
            return loc

        self.local_attn_builder = _LocalAttnBuilder(64, swa_translate=swa_translate)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.token_to_kv_pool, layer, forward_batch, self.local_attn_builder.swa_translate)
        return q


def _gather_key_pages(pool, layer_id: int):
    return pool.get_key_buffer(layer_id)


class PartialReaderAttnBackend(_DecodeOnly):
    """A ``functools.partial`` holding the init-time pool as its first argument."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "_gather"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._gather = functools.partial(_gather_key_pages, model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._gather(layer.layer_id)
        return q


class AllocatorTypeFlagAttnBackend(_DecodeOnly):
    """SWA decided from the allocator's type (the DFlash + Gemma4 bug, PR #27737): an EAGLE
    draft shares the target's SWA allocator but owns a full pool, so flag and pool are wrong."""

    EXPECT, CONFIGS = "stale", (EAGLE,)
    STALE_STATE = "use_sliding_window_kv_pool"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        allocator = model_runner.token_to_kv_pool_allocator
        self.use_sliding_window_kv_pool = isinstance(allocator, SWATokenToKVPoolAllocator)
        self._swa_kv_pool = allocator.get_kvcache() if self.use_sliding_window_kv_pool else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.use_sliding_window_kv_pool:
            _read_kv(self._swa_kv_pool, layer, forward_batch,
                     self._swa_kv_pool.translate_loc_from_full_to_swa)
        return q


class RunnerFlagAttnBackend(_DecodeOnly):
    """``is_hybrid_swa`` copied from the runner: the draft runner's config says False under
    FROZEN_KV MTP, while the swapped-in pool is the target's SWA pool."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "is_hybrid_swa"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        # a real ModelRunner has the attribute; the runner-like object answers from its pool
        fallback = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self.is_hybrid_swa = getattr(model_runner, "is_hybrid_swa", fallback)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        _read_kv(pool, layer, forward_batch,
                 pool.translate_loc_from_full_to_swa if self.is_hybrid_swa else None)
        return q


@dataclasses.dataclass
class SwaConfig:
    enabled: bool
    pool: Optional[object] = None
    window: int = WINDOW


class RecordFlagAttnBackend(_DecodeOnly):
    """The SWA verdict kept inside a dataclass record (``self.swa_config.enabled``)."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "swa_config.enabled"

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        swa = _swa_or_none(model_runner.token_to_kv_pool)
        self.swa_config = SwaConfig(enabled=swa is not None, pool=swa)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        cfg = self.swa_config
        _read_kv(self.token_to_kv_pool, layer, forward_batch,
                 cfg.pool.translate_loc_from_full_to_swa if cfg.enabled else None)
        return q


class ClassAttributePoolAttnBackend(_DecodeOnly):
    """The init-time pool stored on the class (``type(self).shared_kv_pool``), read per launch."""

    EXPECT, CONFIGS = "stale", (FROZEN_KV,)
    STALE_STATE = "shared_kv_pool"
    shared_kv_pool = None

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        type(self).shared_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.shared_kv_pool, layer, forward_batch)
        return q


# --------------------------------------------------------------------------- correct


class LivePropertyAttnBackend(_DecodeOnly):
    """SWA pool and flag are properties over ``self.token_to_kv_pool``: they follow the swap."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size

    @property
    def _swa_kv_pool(self) -> Optional[SWAKVPool]:
        return _swa_or_none(self.token_to_kv_pool)

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return self._swa_kv_pool is not None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        _read_kv(self.token_to_kv_pool, layer, forward_batch,
                 swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class AllocatorResolverAttnBackend(_DecodeOnly):
    """Upstream's fix: the SWA pool resolved through the allocator (None for an EAGLE draft),
    the flag a mirror of it, and the allocator and request pools kept (shared, never swapped)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self.req_to_token_pool = model_runner.req_to_token_pool
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        _read_kv(self.token_to_kv_pool, layer, forward_batch,
                 swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class GeometryOnlyAttnBackend(_DecodeOnly):
    """No SWA state at all: geometry from the pool (page size, head dim, dtype) and the pool
    read at launch time."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.token_to_kv_pool.page_size
        self.head_dim = model_runner.token_to_kv_pool.head_dim
        self.kv_cache_dtype = model_runner.token_to_kv_pool.get_key_buffer(0).dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


class EagleOwnPoolDraftAttnBackend(_DecodeOnly):
    """An EAGLE-style draft owning a full pool: keeping that pool and ``_swa_kv_pool = None``
    is right, because nothing swaps an EAGLE draft's pool."""

    EXPECT, CONFIGS = "correct", (EAGLE,)

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.draft_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = False

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.draft_kv_pool, layer, forward_batch)
        return q


class GeometryWindowFlagAttnBackend(_DecodeOnly):
    """``has_swa`` is model geometry (a sliding window exists, as in FA's backend): True on an
    EAGLE draft's full pool too, where window attention runs over full-pool ids. The pool is
    resolved through the allocator."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.sliding_window_size = getattr(model_runner, "sliding_window_size", WINDOW)
        self.has_swa = self.sliding_window_size is not None and self.sliding_window_size > -1
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        if self.has_swa and swa is not None:
            translate = swa.translate_loc_from_full_to_swa
            _read_kv(self.token_to_kv_pool, layer, forward_batch, translate)
        else:
            _read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


class PerForwardStateAttnBackend(_DecodeOnly):
    """Flag and pool set in ``__init__`` from the init-time pool but decided again in
    ``init_forward_metadata``, which SGLang runs under the swap before every launch."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._refresh()

    def _refresh(self):
        self._swa_kv_pool = _swa_or_none(self.token_to_kv_pool)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

    def init_forward_metadata(self, forward_batch):
        self._refresh()
        super().init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self._swa_kv_pool
        _read_kv(self.token_to_kv_pool, layer, forward_batch,
                 swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class LiveWrapperAttnBackend(_DecodeOnly):
    """A wrapper whose ``token_to_kv_pool`` setter hands the swapped pool to its inner
    backends (listed in ``attn_backend_list``), which keep only live state."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.prefill_backend = LivePropertyAttnBackend(model_runner)
        self.decode_backend = LivePropertyAttnBackend(model_runner)
        self.attn_backend_list = [self.prefill_backend, self.decode_backend]
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self.decode_backend.token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        for inner in self.attn_backend_list:
            inner.token_to_kv_pool = pool

    def init_forward_metadata(self, forward_batch):
        self.decode_backend.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class LiveClosureAttnBackend(_DecodeOnly):
    """A translate function on a helper object that reads ``self.token_to_kv_pool`` when
    called: its closure holds the backend, not a pool."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

        def swa_translate(loc):
            pool = self.token_to_kv_pool
            return pool.translate_loc_from_full_to_swa(loc) if isinstance(pool, SWAKVPool) else loc

        self.local_attn_builder = _LocalAttnBuilder(64, swa_translate=swa_translate)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.token_to_kv_pool, layer, forward_batch, self.local_attn_builder.swa_translate)
        return q


class NonSwaModelAttnBackend(_DecodeOnly):
    """A plain model: a flag and pool decided from the pool's type in ``__init__`` agree with
    the active pool, since nothing swaps it (the same code is stale only under a swap)."""

    EXPECT, CONFIGS = "correct", (NON_SWA,)

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self._swa_kv_pool = _swa_or_none(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


# --------------------------------------------------------------------------- builders


def build_plain(cls):
    """The builder of a class constructed from the runner alone, as SGLang's registry does."""

    def build(model_runner):
        return cls(model_runner)

    build.__name__ = f"build_{cls.__name__}"
    return build


STALE = (
    NestedSubPoolAttnBackend, BoundReaderAttnBackend, LayerPoolDictAttnBackend,
    RenamedFlagAttnBackend, DraftBlindResolverAttnBackend, InnerBackendWrapperAttnBackend,
    ClosureTranslateAttnBackend, PartialReaderAttnBackend, AllocatorTypeFlagAttnBackend,
    RunnerFlagAttnBackend, RecordFlagAttnBackend, ClassAttributePoolAttnBackend,
)
CORRECT = (
    LivePropertyAttnBackend, AllocatorResolverAttnBackend, GeometryOnlyAttnBackend,
    EagleOwnPoolDraftAttnBackend, GeometryWindowFlagAttnBackend, PerForwardStateAttnBackend,
    LiveWrapperAttnBackend, LiveClosureAttnBackend, NonSwaModelAttnBackend,
)
BUILDERS: Dict[type, Callable] = {cls: build_plain(cls) for cls in STALE + CORRECT}


def cases(forms=None):
    """``(cls, config)`` for every class of a set of forms (this module's by default) and every
    configuration it is meant for."""
    classes = forms.STALE + forms.CORRECT if forms is not None else STALE + CORRECT
    return [(cls, config) for cls in classes for config in cls.CONFIGS]


def scenario(cls, config: str) -> SimpleNamespace:
    """A backend of ``cls`` built for ``config`` on real pools, with the pool its launches read
    (``active``) and a real decode batch over that pool."""
    runner, active = sc.configuration(config)
    backend = BUILDERS[cls](runner)
    batch = sc.decode_batch(active, [5, 3])
    return SimpleNamespace(cls=cls, config=config, runner=runner, active=active,
                           backend=backend, batch=batch)


@contextlib.contextmanager
def _attribute_swap(backend, pool):
    """SGLang 0.5.12's view swaps the batch's pool, not the backend's: do what 0.5.13+ does."""
    saved = backend.token_to_kv_pool
    backend.token_to_kv_pool = pool
    try:
        yield
    finally:
        backend.token_to_kv_pool = saved


def launch_view(run: SimpleNamespace):
    """SGLang's own per-forward swap for a FROZEN_KV draft; nothing for the other roles."""
    if run.config != FROZEN_KV:
        return contextlib.nullcontext()
    if sc.backend_reads_own_pool():
        return sc.frozen_kv_view(run.batch, run.active, run.backend)
    return _attribute_swap(run.backend, run.active)


def launch(run: SimpleNamespace, layer_id: int = 0):
    """One decode as SGLang runs it: metadata, then ``AttentionBackend.forward``, under the swap."""
    layer = sc.layer(layer_id)
    q = torch.zeros(run.batch.batch_size, 2 * 8, dtype=sc.DTYPE)
    k = v = torch.zeros(run.batch.batch_size, 1, 8, dtype=sc.DTYPE)
    with launch_view(run):
        run.backend.init_forward_metadata(run.batch)
        return run.backend.forward(q, k, v, layer, run.batch)
