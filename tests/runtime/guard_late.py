"""Backend classes that exist only after the plugin has loaded (import this module after
``load_plugins()``; ``test_guard_late_classes`` does, in a fresh interpreter), written by guard6.

The plugin hooks the classes loaded when it runs; these come later, as a model's lazily imported
backend, a factory's product or a class made per call would, and each runs something the
load-time hooks do not wrap: its own ``forward`` (its own mode dispatch, never the base's), a
``forward`` inherited from a mixin defined with it, its own ``forward_decode`` or
``init_forward_metadata`` over a table class's. Same contract as ``guard_forms`` (``EXPECT``,
``CONFIGS``, ``STALE_STATE``), plus ``build(runner)`` and ``launch`` through SGLang's own
``RadixAttention.forward`` inside SGLang's ``forward_context`` (as ``ModelRunner`` runs a forward)
under SGLang's ``frozen_kv_target_view``.

Stale forms: a class no table names whose own ``forward`` dispatches by mode (the pool under
another name); the same made in a function (no importable path; a flag); one made by ``type()``
(no source; the resolved SWA pool, None); a ``forward`` from a mixin defined late (a bound
method of the pool); a wrapper whose own ``forward`` calls its inner backend, a late class
caching the pool; subclasses of SGLang's ``TRTLLMHAAttnBackend`` resolving the SWA pool the
pre-fix way that override ``forward_decode`` and ``init_forward_metadata``, or ``forward`` itself.
Correct twins: each shape reading the pool per launch or resolving it through the allocator
(upstream PR #27491), and an override that calls ``super().forward`` (checked at the base).
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import blind_backends as bb
import torch

from runtime_guard.demo import scenarios as sc

sg = sc.sglang()
from sglang.srt.model_executor.forward_context import (  # noqa: E402
    ForwardContext,
    forward_context,
)

SWAKVPool = bb.SWAKVPool
FROZEN_KV = bb.FROZEN_KV
ALL = bb.ALL
SEQ = [5, 3]


def _swa_or_none(pool):
    return pool if isinstance(pool, SWAKVPool) else None


class _OwnDispatch(bb._DecodeOnly):
    """Its own ``forward``: a mode dispatch of its own, never the base class's."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if forward_batch.forward_mode.is_decode():
            return self._decode(q, layer, forward_batch)
        return self._extend(q, layer, forward_batch)

    def _decode(self, q, layer, forward_batch):
        bb._read_kv(self._pool(), layer, forward_batch)
        return q

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self._decode(q, layer, forward_batch)

    _extend = _decode

    def _pool(self):
        return self.token_to_kv_pool

    @classmethod
    def build(cls, model_runner):
        return cls(model_runner)


# --------------------------------------------------------------------------- stale


class OwnDispatchAttnBackend(_OwnDispatch):
    """Its own ``forward`` dispatches by mode to its own methods; the pool it reads is the one
    kept at ``__init__`` as ``kv_cache``: the draft's own after the FROZEN_KV swap."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "kv_cache"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_cache = model_runner.token_to_kv_pool

    def _pool(self):
        return self.kv_cache


def _local_flag_class(live: bool):
    class LocalFlagAttnBackend(_OwnDispatch):
        """Made in a function: its own ``forward`` translates SWA ids under ``window_paged``,
        decided at ``__init__`` from the draft's own pool (False) in the stale form, per launch
        from the active pool in the correct one."""

        EXPECT = "correct" if live else "stale"
        CONFIGS, STALE_STATE = (ALL if live else (FROZEN_KV,)), "window_paged"

        def __init__(self, model_runner):
            super().__init__(model_runner)
            self.window_paged = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            if live:
                self.window_paged = isinstance(self.token_to_kv_pool, SWAKVPool)
            pool = self.token_to_kv_pool
            bb._read_kv(pool, layer, forward_batch,
                        pool.translate_loc_from_full_to_swa if self.window_paged else None)
            return q

    LocalFlagAttnBackend.__name__ = "LiveLocalFlagAttnBackend" if live else "LocalFlagAttnBackend"
    return LocalFlagAttnBackend


def _generated_class(live: bool):
    """A class ``type()`` makes from functions (no class statement to read)."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = (bb.resolve_swa_kv_pool(model_runner) if live
                             else _swa_or_none(model_runner.token_to_kv_pool))

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self._swa_kv_pool or self.token_to_kv_pool
        bb._read_kv(pool, layer, forward_batch)
        return q

    name = "GeneratedResolvedAttnBackend" if live else "GeneratedDispatchAttnBackend"
    return type(name, (bb._DecodeOnly,), {
        "__init__": __init__, "forward": forward, "build": classmethod(_OwnDispatch.build.__func__),
        "__doc__": "Made by type(): its own forward reads _swa_kv_pool, resolved "
                   + ("through the allocator" if live else "from the draft's own pool (None)"),
        "EXPECT": "correct" if live else "stale", "CONFIGS": ALL if live else (FROZEN_KV,),
        "STALE_STATE": "_swa_kv_pool", "__module__": __name__})


class _LateForwardMixin:
    """A mixin defined with the late classes: its ``forward`` reads through ``self._reader``."""

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._reader(layer.layer_id)
        return q


class MixinBoundReaderAttnBackend(_LateForwardMixin, _OwnDispatch):
    """``forward`` from a late mixin; the reader is the draft's own pool's bound method."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_reader"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._reader = model_runner.token_to_kv_pool.get_key_buffer


class _Inner(_OwnDispatch):
    """A late inner backend that keeps its runner's pool as ``pool_ref``."""

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.pool_ref = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.pool_ref, layer, forward_batch)
        return q


class WrapperOwnForwardAttnBackend(_OwnDispatch):
    """Its own ``forward`` calls its inner backend's ``forward_decode`` (never a dispatch);
    the inner one keeps the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "inner.pool_ref"

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.inner = _Inner(model_runner)
        del self.inner.token_to_kv_pool  # it reads the wrapper's, which the swap rebinds

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


TRTLLM = sg.TRTLLMHAAttnBackend


class _LateTrtllm(TRTLLM):
    """SGLang's trtllm backend with its own metadata build and launch (no GPU kernel)."""

    CONFIGS = ALL

    def init_forward_metadata(self, forward_batch):
        self._build(forward_batch)

    def _build(self, forward_batch):
        seq = forward_batch.seq_lens.tolist()
        table = sc.contiguous_page_table(seq, 4)
        swa = table % (sc.SIZE_SWA // sc.PAGE) if self._swa_kv_pool is not None else None
        sc.metadata(self, seq, table, swa)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return q

    @classmethod
    def build(cls, model_runner):
        return sc.construct_backend(cls, model_runner)


class LateTrtllmDecodeAttnBackend(_LateTrtllm):
    """Overrides ``forward_decode`` and ``init_forward_metadata`` of the table's trtllm class;
    built the pre-fix way (``_swa_kv_pool`` from the draft's own pool: None)."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "_swa_kv_pool"

    @classmethod
    def build(cls, model_runner):
        return sc.construct_backend(sc.pre_fix_backend_class(cls), model_runner)


class _OwnTrtllmDispatch:
    """``forward`` computes the launch itself (never a launch method) after building the
    metadata there (no metadata method is called)."""

    METADATA_IN_FORWARD = True

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self._build(forward_batch)
        return q


class LateTrtllmDispatchAttnBackend(_OwnTrtllmDispatch, LateTrtllmDecodeAttnBackend):
    """Overrides ``forward`` itself; built the pre-fix way (``_swa_kv_pool`` None)."""


# --------------------------------------------------------------------------- correct


class LiveOwnDispatchAttnBackend(_OwnDispatch):
    """Its own ``forward`` dispatches by mode; it reads ``self.token_to_kv_pool`` per launch."""

    EXPECT, CONFIGS = "correct", ALL


class MixinLiveReaderAttnBackend(_LateForwardMixin, _OwnDispatch):
    """``forward`` from the late mixin; the reader is bound to the active pool per forward."""

    EXPECT, CONFIGS = "correct", ALL

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self._reader = self.token_to_kv_pool.get_key_buffer


class _LiveInner(_Inner):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        bb._read_kv(self.token_to_kv_pool, layer, forward_batch)
        return q


class WrapperHandsPoolAttnBackend(_OwnDispatch):
    """Its own ``forward`` calls its inner backend, to which each metadata build hands the
    active pool (as SGLang's fix propagates a wrapper's pool)."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.inner = _LiveInner(model_runner)
        del self.inner.pool_ref

    def init_forward_metadata(self, forward_batch):
        self.inner.token_to_kv_pool = self.token_to_kv_pool

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class OverrideCallsSuperAttnBackend(_OwnDispatch):
    """Overrides ``forward`` to count launches, then calls the base dispatch (hooked there)."""

    EXPECT, CONFIGS = "correct", ALL

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.launches = getattr(self, "launches", 0) + 1
        return super(_OwnDispatch, self).forward(q, k, v, layer, forward_batch, save_kv_cache)


class LateTrtllmResolvedAttnBackend(_LateTrtllm):
    """The trtllm subclass built with upstream's resolver (the allocator's pool for a FROZEN_KV
    draft), overriding ``forward_decode`` and ``init_forward_metadata``."""

    EXPECT = "correct"


class LateTrtllmResolvedDispatchAttnBackend(_OwnTrtllmDispatch, LateTrtllmResolvedAttnBackend):
    """The same, overriding ``forward`` itself."""


LocalFlagAttnBackend = _local_flag_class(live=False)
LiveLocalFlagAttnBackend = _local_flag_class(live=True)
GeneratedDispatchAttnBackend = _generated_class(live=False)
GeneratedResolvedAttnBackend = _generated_class(live=True)

STALE = (
    OwnDispatchAttnBackend, LocalFlagAttnBackend, GeneratedDispatchAttnBackend,
    MixinBoundReaderAttnBackend, WrapperOwnForwardAttnBackend, LateTrtllmDecodeAttnBackend,
    LateTrtllmDispatchAttnBackend,
)
CORRECT = (
    LiveOwnDispatchAttnBackend, LiveLocalFlagAttnBackend, GeneratedResolvedAttnBackend,
    MixinLiveReaderAttnBackend, WrapperHandsPoolAttnBackend, OverrideCallsSuperAttnBackend,
    LateTrtllmResolvedAttnBackend, LateTrtllmResolvedDispatchAttnBackend,
)


def cases():
    """``(cls, config)`` for every class and every configuration it is meant for."""
    return [(cls, config) for cls in STALE + CORRECT for config in cls.CONFIGS]


def launch(cls, config: str, layer_id: int = 0, context: bool = True):
    """Build ``cls`` for ``config`` and run one decode layer as SGLang does: the metadata build,
    then ``RadixAttention.forward``, inside SGLang's ``forward_context`` (``context``; without
    it, ``backend.forward`` is called directly) and, for a FROZEN_KV draft, its
    ``frozen_kv_target_view``."""
    runner, active = sc.configuration(config)
    backend = cls.build(runner)
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    q, k, v, layer, batch = sc.decode_args(batch, layer_id)
    view = (sc.frozen_kv_view(batch, active, backend) if active is not runner.token_to_kv_pool
            else contextlib.nullcontext())
    published = (forward_context(ForwardContext(attn_backend=backend), forward_batch=batch)
                 if context else contextlib.nullcontext())
    with view, published:
        if not getattr(cls, "METADATA_IN_FORWARD", False):
            backend.init_forward_metadata(batch)
        out = layer.forward(q, k, v, batch) if context else backend.forward(q, k, v, layer, batch)
    return SimpleNamespace(backend=backend, out=out)


def check_material() -> None:
    """With the guard off every class builds and launches in its configurations."""
    for cls, config in cases():
        assert torch.is_tensor(launch(cls, config).out), (cls, config)
