"""Backends no table of the guard names, written blind from the bug class by rt17 (the guard's
implementation unread while they were written): stale SWA state that reaches a kernel through a
launch path other than a plain ``forward_decode`` behind ``AttentionBackend.forward``, each
path with a correct twin.

Same contract as ``guard_forms`` (whose ``scenario``/``launch``/configurations it reuses); a
class naming a ``DRIVE`` function is launched by it, under the same per-forward swap, the way
SGLang 0.5.23 drives that path (``docs``: upstream-0.5.23.md):

- ``drive_extend``: an EXTEND batch, ``forward`` with ``save_kv_cache=True`` (the KV write
  before the attention read);
- ``drive_mode(mode)``: a TARGET_VERIFY or DRAFT_EXTEND_V2 batch (``forward`` routes both to
  ``forward_extend``);
- ``drive_graph``: CUDA-graph capture (``init_forward_metadata_out_graph(in_capture=True)``,
  ``init_forward_metadata_in_graph``, the captured forward), then the replay metadata built
  from the batch view FROZEN_KV's graph runner hands it (a ``SimpleNamespace`` without a pool,
  ``_init_frozen_kv_metadata_replay_cuda_graph``), then the forward the replay stands for;
- ``drive_steps``: a multi-step draft wrapper (not an ``AttentionBackend``) running each step
  backend's ``forward`` in turn; ``REPORTED_AS`` names the step class a refusal names.

Stale forms: an EXTEND write through a helper keeping the init-time pool; a verdict only the
TARGET_VERIFY path reads; an EAGLE draft's draft-extend pool resolved without the draft check;
a pool kept for the CUDA graph that the replay metadata falls back on; a child's flag reached
by a composite parent calling the child's ``forward_decode`` directly; a window pool a
multi-step wrapper resolved once and handed to its step backends; a ``forward`` override
launching through a callable reader object; a TBO-style composite whose swap reaches its
primary but not its micro-batch children; a kernel launcher helper reading the model runner's
pool (never swapped); ``set_kv_buffer`` with SWA write ids from a translator chosen at init.
Correct twins: the EXTEND write through the live pool with translated SWA ids; graph metadata
built from the live pool on capture and replay; a composite handing the swap to children that
keep only live state; a multi-step wrapper whose steps resolve the SWA pool through the
allocator; a ``forward`` override dispatching TARGET_VERIFY/DRAFT_EXTEND over the live pool; a
TBO-style composite handing the swap to its primary and children.

The blind measure (rt17 at 89693e8, the guard unchanged): 7 of 10 stale classes refused (a
helper reading the model runner's pool, a window pool handed to step backends left None, a
function picked as the SWA write-id translator were launched; the direct-call composite was
refused naming its prefill child, as stale as its decode child then: that child keeps no flag
now, so the message must find the decode child), 5 of 6 correct ones launched
(the multi-step twin resolving through the allocator was refused for a draft owning an SWA
pool: rightly, upstream's resolver returns that own pool; the twin is meant for the other
configurations now). Two correct twins of what the guard then learnt to read were added after
(not blind): a launcher keeping the runner for its geometry, a translator picked per forward.
"""

from __future__ import annotations

from types import SimpleNamespace

import guard_forms as gf
from guard_forms import is_swa as _is_swa

from sglang.srt.mem_cache.memory_pool import KVWriteLoc  # after guard_forms: CPU-safe
from sglang.srt.model_executor.forward_batch_info import ForwardMode

bb = gf.bb
FROZEN_KV, EAGLE = bb.FROZEN_KV, bb.EAGLE
ALL, SWAPPED = gf.ALL, gf.SWAPPED


# =========================================================================== launch paths


def drive_extend(run, q, k, v, layer):
    """A prefill chunk: EXTEND metadata, then ``forward`` writing the chunk's KV first."""
    run.batch.forward_mode = ForwardMode.EXTEND
    run.backend.init_forward_metadata(run.batch)
    return run.backend.forward(q, k, v, layer, run.batch, save_kv_cache=True)


def drive_mode(mode: str):
    """A speculative batch of ``mode`` (TARGET_VERIFY, DRAFT_EXTEND_V2): ``forward_extend``."""

    def drive(run, q, k, v, layer):
        run.batch.forward_mode = getattr(ForwardMode, mode)
        run.backend.init_forward_metadata(run.batch)
        return run.backend.forward(q, k, v, layer, run.batch)

    drive.__name__ = f"drive_{mode.lower()}"
    return drive


def _replay_view(batch):
    """The batch view FROZEN_KV's graph runner builds for the replay metadata (no pool)."""
    return SimpleNamespace(
        batch_size=batch.batch_size, forward_mode=ForwardMode.DECODE,
        input_ids=batch.input_ids, req_pool_indices=batch.req_pool_indices,
        seq_lens=batch.seq_lens, seq_lens_sum=batch.seq_lens_sum, seq_lens_cpu=None,
        encoder_lens=None, out_cache_loc=batch.out_cache_loc, spec_info=None,
    )


def drive_graph(run, q, k, v, layer):
    """Capture (out-of-graph metadata, in-graph metadata, the captured forward), then replay:
    the replay metadata from the runner's batch view, and the forward the replay re-runs."""
    backend, batch = run.backend, run.batch
    batch.forward_mode = ForwardMode.DECODE
    backend.init_forward_metadata_out_graph(batch, in_capture=True)
    backend.init_forward_metadata_in_graph(batch)
    backend.forward(q, k, v, layer, batch)
    backend.init_forward_metadata_out_graph(_replay_view(batch))
    return backend.forward(q, k, v, layer, batch)


def drive_steps(run, q, k, v, layer):
    """A multi-step draft: every step backend's metadata, then each step's ``forward``."""
    wrapper = run.backend
    run.batch.forward_mode = ForwardMode.DECODE
    wrapper.init_forward_metadata(run.batch)
    out = None
    for step in wrapper.attn_backends:
        out = step.forward(q, k, v, layer, run.batch)
    return out


# =========================================================================== helpers


def _read(pool, layer, forward_batch, translate=None):
    return bb._read_kv(pool, layer, forward_batch, translate)


def _live_translate(pool):
    return pool.translate_loc_from_full_to_swa if _is_swa(pool) else None


def _write(pool, layer, forward_batch, k, v, swa_loc):
    """``set_kv_buffer`` as 0.5.23 backends call it: one ``KVWriteLoc`` carrying the SWA ids."""
    loc = forward_batch.out_cache_loc
    pool.set_kv_buffer(layer, KVWriteLoc(loc, swa_loc=swa_loc if _is_swa(pool) else None), k, v)


class _KvWriter:
    """Writes a chunk's K/V into the pool it was made with."""

    def __init__(self, pool):
        self.pool = pool

    def write(self, layer, forward_batch, k, v):
        translate = _live_translate(self.pool)
        loc = forward_batch.out_cache_loc
        _write(self.pool, layer, forward_batch, k, v, translate(loc) if translate else loc)


class _PagedReader:
    """A callable reader object: the pool it was made with, read per call."""

    def __init__(self, pool):
        self.pool = pool

    def __call__(self, layer, forward_batch):
        return _read(self.pool, layer, forward_batch, _live_translate(self.pool))


class _KernelLauncher:
    """Launches the paged kernel over the model runner's pool (``get_token_to_kv_pool()``)."""

    def __init__(self, model_runner):
        self.runner = model_runner

    def launch(self, layer, forward_batch):
        pool = self.runner.token_to_kv_pool
        return _read(pool, layer, forward_batch, _live_translate(pool))


class _Leaf(gf.KeepsPool):
    """An inner backend reading its own ``token_to_kv_pool`` (translated on an SWA pool)."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        _read(pool, layer, forward_batch, _live_translate(pool))
        return q


class _PoolFanOut:
    """A composite's ``token_to_kv_pool``: set on the composite, handed to ``_swapped``."""

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        for inner in self._swapped():
            inner.token_to_kv_pool = pool


# =========================================================================== stale


class ExtendKeptWriterAttnBackend(gf.KeepsPool):
    """A prefill chunk's KV is written before the read by a writer helper made with the
    init-time pool: under the swap the chunk lands in the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "kv_writer"
    DRIVE = staticmethod(drive_extend)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_writer = _KvWriter(model_runner.token_to_kv_pool)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if save_kv_cache:
            self.kv_writer.write(layer, forward_batch, k, v)
        _read(self.token_to_kv_pool, layer, forward_batch, _live_translate(self.token_to_kv_pool))
        return q


class VerifyOnlyVerdictAttnBackend(gf.KeepsPool):
    """A verdict only the TARGET_VERIFY path reads (the verify kernel's SWA page table),
    decided from the init-time pool: False for the draft, while it reads the target's pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "verify_window_ids"
    DRIVE = staticmethod(drive_mode("TARGET_VERIFY"))

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.verify_window_ids = _is_swa(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read(self.token_to_kv_pool, layer, forward_batch, _live_translate(self.token_to_kv_pool))
        return q

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        if forward_batch.forward_mode.is_target_verify():
            translate = pool.translate_loc_from_full_to_swa if self.verify_window_ids else None
            _read(pool, layer, forward_batch, translate)
            return q
        return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class DraftExtendPoolAttnBackend(gf.KeepsPool):
    """The draft-extend kernel's SWA pool, taken from the shared allocator with no draft
    check: an EAGLE draft owning a full pool translates its own ids with the target's map."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (EAGLE,), "draft_extend_swa_pool"
    DRIVE = staticmethod(drive_mode("DRAFT_EXTEND_V2"))

    def __init__(self, model_runner):
        super().__init__(model_runner)
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        self.draft_extend_swa_pool = kvcache if _is_swa(kvcache) else None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self.draft_extend_swa_pool
        if forward_batch.forward_mode == ForwardMode.DRAFT_EXTEND_V2 and swa is not None:
            _read(self.token_to_kv_pool, layer, forward_batch, swa.translate_loc_from_full_to_swa)
        else:
            _read(self.token_to_kv_pool, layer, forward_batch)
        return q


class ReplayFallbackPoolAttnBackend(gf.KeepsPool):
    """Graph metadata reads the batch's pool, falling back on a pool kept for the graph at
    init: the replay's batch view has none, so replay metadata translates with the draft's
    own (non-SWA) pool while the replayed kernel reads the target's."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "graph_kv_pool"
    DRIVE = staticmethod(drive_graph)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.graph_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False):
        pool = getattr(forward_batch, "token_to_kv_pool", None) or self.graph_kv_pool
        self.forward_metadata = SimpleNamespace(translate=_live_translate(pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read(self.token_to_kv_pool, layer, forward_batch, self.forward_metadata.translate)
        return q


class _FlagChild(gf.KeepsPool):
    """A child deciding at init whether its ids need the SWA translation."""

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.translate_ids = _is_swa(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        _read(pool, layer, forward_batch,
              pool.translate_loc_from_full_to_swa if self.translate_ids else None)
        return q


class DirectChildCallAttnBackend(_PoolFanOut, gf.KeepsPool):
    """A prefill/decode composite (like HybridAttnBackend) handing the swap to its children
    and calling the decode child's ``forward_decode`` directly: the child's init-time flag
    reaches the kernel without the child's ``forward`` running."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "decode_backend.translate_ids"

    def __init__(self, model_runner):
        self.prefill_backend = _Leaf(model_runner)
        self.decode_backend = _FlagChild(model_runner)
        super().__init__(model_runner)

    def _swapped(self):
        return (self.prefill_backend, self.decode_backend)

    def init_forward_metadata(self, forward_batch):
        self.decode_backend.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class _WindowStep(gf.KeepsPool):
    """One draft step: translates through the window pool its wrapper handed it."""

    def __init__(self, model_runner, window_pool, step_id: int):
        super().__init__(model_runner)
        self.window_pool = window_pool
        self.step_id = step_id

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        swa = self.window_pool
        _read(self.token_to_kv_pool, layer, forward_batch,
              swa.translate_loc_from_full_to_swa if swa is not None else None)
        return q


class HandedWindowStepsDraft(_PoolFanOut):
    """A multi-step draft wrapper (not an ``AttentionBackend``, like SGLang's
    ``*MultiStepDraftBackend``) resolving the window pool once from the init-time pool and
    handing it to each step backend; the swap reaches the steps' ``token_to_kv_pool`` only."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "window_pool"
    REPORTED_AS = "_WindowStep"
    DRIVE = staticmethod(drive_steps)

    def __init__(self, model_runner, num_steps: int = 3):
        pool = model_runner.token_to_kv_pool
        window_pool = pool if _is_swa(pool) else None
        self.attn_backends = [_WindowStep(model_runner, window_pool, i) for i in range(num_steps)]
        self.token_to_kv_pool = pool

    def _swapped(self):
        return self.attn_backends

    def init_forward_metadata(self, forward_batch):
        for step in self.attn_backends:
            step.init_forward_metadata(forward_batch)


class OwnForwardReaderAttnBackend(gf.KeepsPool):
    """Overrides ``forward`` itself (dispatching by mode, as wrappers do) and launches every
    mode through a callable reader object made with the init-time pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", SWAPPED, "paged_reader"
    DRIVE = staticmethod(drive_mode("TARGET_VERIFY"))

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.paged_reader = _PagedReader(model_runner.token_to_kv_pool)

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if forward_batch.forward_mode.is_idle():
            return q
        self.paged_reader(layer, forward_batch)
        return q


class TboChildrenAttnBackend(gf.KeepsPool):
    """A two-batch-overlap composite (like TboAttnBackend): the swap of its
    ``token_to_kv_pool`` is handed to the primary only; the overlapped micro-batches run on
    the children, which keep the draft's own pool."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "children"

    def __init__(self, model_runner):
        self.primary = _Leaf(model_runner)
        self.children = [_Leaf(model_runner) for _ in range(2)]
        super().__init__(model_runner)

    @property
    def token_to_kv_pool(self):
        return self.primary.token_to_kv_pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self.primary.token_to_kv_pool = pool

    def init_forward_metadata(self, forward_batch):
        self.primary.init_forward_metadata(forward_batch)
        for child in self.children:
            child.init_forward_metadata(forward_batch)

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        for child in self.children:  # one micro-batch each
            child.forward(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)
        return q


class RunnerLauncherAttnBackend(gf.KeepsPool):
    """The kernel is launched by a helper object's method reading the model runner's pool:
    the FROZEN_KV swap rebinds the backend's pool, never the runner's."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "launcher"
    DRIVE = staticmethod(drive_extend)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.launcher = _KernelLauncher(model_runner)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.launcher.launch(layer, forward_batch)
        return q

    forward_decode = forward_extend


def _same_ids(loc):
    return loc


class InitTranslatorWriteAttnBackend(gf.KeepsPool):
    """SWA write ids from a translator chosen at init (identity on the draft's own pool):
    ``set_kv_buffer`` on the target's SWA pool gets full-pool ids for its SWA layers."""

    EXPECT, CONFIGS, STALE_STATE = "stale", (FROZEN_KV,), "swa_write_ids"
    DRIVE = staticmethod(drive_extend)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        pool = model_runner.token_to_kv_pool
        self.swa_write_ids = pool.translate_loc_from_full_to_swa if _is_swa(pool) else _same_ids

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        if save_kv_cache:
            _write(pool, layer, forward_batch, k, v,
                   self.swa_write_ids(forward_batch.out_cache_loc))
        _read(pool, layer, forward_batch, _live_translate(pool))
        return q


# =========================================================================== correct


class ExtendLiveWriteAttnBackend(gf.KeepsPool):
    """The EXTEND write and read through the live pool, SWA ids translated per forward."""

    EXPECT, CONFIGS = "correct", ALL
    DRIVE = staticmethod(drive_extend)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        translate = _live_translate(pool)
        loc = forward_batch.out_cache_loc
        if save_kv_cache:
            _write(pool, layer, forward_batch, k, v, translate(loc) if translate else loc)
        _read(pool, layer, forward_batch, translate)
        return q


class GraphLiveMetadataAttnBackend(gf.KeepsPool):
    """Graph metadata on capture and replay from the batch's pool or else the backend's live
    one (the swapped pool on the replay's batch view)."""

    EXPECT, CONFIGS = "correct", ALL
    DRIVE = staticmethod(drive_graph)

    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False):
        pool = getattr(forward_batch, "token_to_kv_pool", None) or self.token_to_kv_pool
        self.forward_metadata = SimpleNamespace(translate=_live_translate(pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        _read(self.token_to_kv_pool, layer, forward_batch, self.forward_metadata.translate)
        return q


class DirectLiveChildAttnBackend(_PoolFanOut, gf.KeepsPool):
    """A composite handing the swap to children that keep no verdict, calling the decode
    child's ``forward_decode`` directly."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.prefill_backend = _Leaf(model_runner)
        self.decode_backend = _Leaf(model_runner)
        super().__init__(model_runner)

    def _swapped(self):
        return (self.prefill_backend, self.decode_backend)

    def init_forward_metadata(self, forward_batch):
        self.decode_backend.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class ResolvedWindowStepsDraft(_PoolFanOut):
    """A multi-step draft wrapper whose steps get the SWA pool resolved through the shared
    allocator (upstream's resolver: None for an EAGLE draft, the target's for FROZEN_KV; a
    draft owning an SWA pool of its own resolves that one, stale, so not meant for it)."""

    EXPECT, CONFIGS = "correct", bb.ALL
    DRIVE = staticmethod(drive_steps)

    def __init__(self, model_runner, num_steps: int = 3):
        window_pool = bb.resolve_swa_kv_pool(model_runner)
        self.attn_backends = [_WindowStep(model_runner, window_pool, i) for i in range(num_steps)]
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def _swapped(self):
        return self.attn_backends

    def init_forward_metadata(self, forward_batch):
        for step in self.attn_backends:
            step.init_forward_metadata(forward_batch)


class OwnForwardLiveAttnBackend(gf.KeepsPool):
    """Overrides ``forward``: TARGET_VERIFY and DRAFT_EXTEND batches over the live pool."""

    EXPECT, CONFIGS = "correct", ALL
    DRIVE = staticmethod(drive_mode("DRAFT_EXTEND_V2"))

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if forward_batch.forward_mode.is_idle():
            return q
        pool = self.token_to_kv_pool
        _read(pool, layer, forward_batch, _live_translate(pool))
        return q


class TboLiveChildrenAttnBackend(_PoolFanOut, gf.KeepsPool):
    """A two-batch-overlap composite handing the swap to its primary and its children."""

    EXPECT, CONFIGS = "correct", ALL

    def __init__(self, model_runner):
        self.primary = _Leaf(model_runner)
        self.children = [_Leaf(model_runner) for _ in range(2)]
        super().__init__(model_runner)

    def _swapped(self):
        return (self.primary, *self.children)

    def init_forward_metadata(self, forward_batch):
        for inner in self._swapped():
            inner.init_forward_metadata(forward_batch)

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        for child in self.children:
            child.forward(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)
        return q


# Correct twins of what the guard learnt to read from this set, written after the blind
# measure (not blind).


class _GeometryLauncher:
    """Keeps the model runner for its geometry and the backend for the pool it reads."""

    def __init__(self, model_runner, backend):
        self.runner = model_runner
        self.backend = backend
        self.init_pool_size = model_runner.token_to_kv_pool.size  # read at build time only

    def launch(self, layer, forward_batch):
        assert self.runner.page_size > 0
        pool = self.backend.token_to_kv_pool
        return _read(pool, layer, forward_batch, _live_translate(pool))


class RunnerGeometryLauncherAttnBackend(gf.KeepsPool):
    """A launcher helper keeping the model runner, reading only its page size per launch (and
    its pool at build time); the pool it launches over is the backend's live one."""

    EXPECT, CONFIGS = "correct", ALL
    DRIVE = staticmethod(drive_extend)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.launcher = _GeometryLauncher(model_runner, self)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.launcher.launch(layer, forward_batch)
        return q


class PerForwardTranslatorPickAttnBackend(gf.KeepsPool):
    """SWA write ids from a translator picked by the same SWA test, again per forward in
    ``init_forward_metadata`` (under the swap), before the EXTEND write."""

    EXPECT, CONFIGS = "correct", ALL
    DRIVE = staticmethod(drive_extend)

    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._pick()

    def _pick(self):
        pool = self.token_to_kv_pool
        self.swa_write_ids = pool.translate_loc_from_full_to_swa if _is_swa(pool) else _same_ids

    def init_forward_metadata(self, forward_batch):
        self._pick()
        super().init_forward_metadata(forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        pool = self.token_to_kv_pool
        if save_kv_cache:
            _write(pool, layer, forward_batch, k, v,
                   self.swa_write_ids(forward_batch.out_cache_loc))
        _read(pool, layer, forward_batch, _live_translate(pool))
        return q


STALE = (
    ExtendKeptWriterAttnBackend, VerifyOnlyVerdictAttnBackend, DraftExtendPoolAttnBackend,
    ReplayFallbackPoolAttnBackend, DirectChildCallAttnBackend, HandedWindowStepsDraft,
    OwnForwardReaderAttnBackend, TboChildrenAttnBackend, RunnerLauncherAttnBackend,
    InitTranslatorWriteAttnBackend,
)
CORRECT = (
    ExtendLiveWriteAttnBackend, GraphLiveMetadataAttnBackend, DirectLiveChildAttnBackend,
    ResolvedWindowStepsDraft, OwnForwardLiveAttnBackend, TboLiveChildrenAttnBackend,
    RunnerGeometryLauncherAttnBackend, PerForwardTranslatorPickAttnBackend,
)
