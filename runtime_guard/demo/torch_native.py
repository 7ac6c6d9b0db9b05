"""The FROZEN_KV MTP pool swap end to end on a backend that runs on a CPU: TorchNative.

SGLang's own ``TorchNativeAttnBackend`` is built through its real ``__init__`` from real pools,
and its real ``init_forward_metadata`` and ``forward_decode`` run under SGLang's own
``frozen_kv_target_view``. The reference is the same decode step on a backend built by the
target's runner. Only the model runner is ours (a namespace carrying the attributes the
constructor reads).

Two batches. The one SGLang 0.5.23's FROZEN_KV worker really builds (``out_cache_loc = None``,
and the KV-shared draft layers call with ``save_kv_cache=False``): the stale SWA flag is
*latent* there (TorchNative reads it only to write KV), the output is correct, and ``check``
logs it once instead of stopping the server. And the same stale backend given a batch that
writes KV (what any writing launch would do): *live*, SGLang's own ``set_kv_buffer`` asserts,
and ``check`` raises before it. Each batch also runs under SGLang's own aids
(``SGLANG_ENABLE_ASYNC_ASSERT=1``, ``SGLANG_INVARIANT_CHECK=2``: strict, as SGLang spells it), side
by side.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from pathlib import Path
from typing import NamedTuple

import torch

from runtime_guard.config import GuardConfig
from runtime_guard.demo import scenarios as sc

SEQ = [6, 5]  # tokens per request, the last one being decoded
LAYERS = (0, 1)  # layer 0 is a sliding-window layer, layer 1 a full one


class Replay(NamedTuple):
    """Per case (see ``CASES``): the outcome line, and µs per decode step (metadata + launches)."""

    outcomes: dict
    step_us: dict
    fixed_matches: bool
    max_abs_diff: float


def _setting():
    """Target pool filled with K/V for every request's tokens, its allocator, a FROZEN_KV
    draft runner with its own pool, and the decode batch."""
    target = sc.swa_pool(page=1)
    allocator = sc.swa_allocator(target, page=1)
    locs = allocator.alloc(sum(SEQ))  # full-pool ids; the allocator maps each to an SWA slot
    generator = torch.Generator().manual_seed(0)
    for layer_id in sorted(target.layers_mapping):
        k = torch.randn(len(locs), 1, 8, generator=generator).to(sc.DTYPE)
        write = sc.sglang().KVWriteLoc(locs, target.translate_loc_from_full_to_swa(locs))
        target.set_kv_buffer(sc.layer(layer_id), write, k, k * 0.5)
    req_to_token = torch.zeros(4, max(SEQ), dtype=torch.int32)
    start = 0
    for row, length in enumerate(SEQ):
        req_to_token[row, :length] = locs[start:start + length]
        start += length
    draft = sc.runner(sc.mha_pool(layer_num=1), allocator, draft=True, spec="FROZEN_KV_MTP")
    for runner in (draft,):
        runner.req_to_token_pool.req_to_token = req_to_token
    batch = sc.decode_batch(draft.token_to_kv_pool, SEQ)
    batch.out_cache_loc = None  # frozen_kv_mtp_worker_v2: "Frozen draft never writes KV"
    writing = sc.decode_batch(draft.token_to_kv_pool, SEQ)
    writing.out_cache_loc = req_to_token[torch.arange(len(SEQ)), torch.tensor(SEQ) - 1].long()
    return target, draft, batch, writing


def _decode(backend, batch, view_pool, hooks=None):
    """init_forward_metadata + forward_decode per layer, through the guard's hooks if given;
    K/V are handed to the launch (and written) only when the batch has write slots."""
    cls = type(backend)
    q = torch.linspace(-1, 1, len(SEQ) * 16).reshape(len(SEQ), 16).to(sc.DTYPE)
    k = torch.ones(len(SEQ), 1, 8, dtype=sc.DTYPE)
    writes = batch.out_cache_loc is not None
    outputs = []
    with sc.frozen_kv_view(batch, view_pool, backend):
        if hooks is None:
            backend.init_forward_metadata(batch)
        else:
            hooks.guard_metadata(cls.init_forward_metadata, backend, batch)
        for layer_id in LAYERS:
            args = (q, k, k.clone(), sc.layer(layer_id), batch)
            launch = backend.forward_decode if hooks is None else (
                lambda *a, **kw: hooks.guard_launch(cls.forward_decode, backend, *a, **kw))
            outputs.append(launch(*args, save_kv_cache=writes))
    return torch.stack(outputs)


# case -> (batch: "real" or "writing", poolguard configuration or None, SGLang's env vars)
CASES = {
    "real batch, no guard": ("real", None, {}),
    "real batch, SGLANG_POOLGUARD=1": ("real", GuardConfig(mode="check"), {}),
    "real batch, SGLANG_POOLGUARD=1 SGLANG_INVARIANT_CHECK=2": (
        "real", GuardConfig(mode="check", latent="strict"), {}),
    "real batch, SGLANG_ENABLE_ASYNC_ASSERT=1": ("real", None,
                                                 {"SGLANG_ENABLE_ASYNC_ASSERT": "1"}),
    "writing batch, no guard": ("writing", None, {}),
    "writing batch, SGLANG_ENABLE_ASYNC_ASSERT=1": ("writing", None,
                                                    {"SGLANG_ENABLE_ASYNC_ASSERT": "1"}),
    "writing batch, SGLANG_INVARIANT_CHECK=2": ("writing", None, {"SGLANG_INVARIANT_CHECK": "2"}),
    "writing batch, SGLANG_POOLGUARD=1": ("writing", GuardConfig(mode="check"), {}),
    "writing batch, SGLANG_POOLGUARD=bounds": ("writing", GuardConfig(mode="bounds"), {}),
}


@contextlib.contextmanager
def _environment(values: dict):
    """SGLang reads its switches (``envs.X.get()``) at call time: set them for one case."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _outcome(run, reference) -> str:
    try:
        out = run()
    except Exception as err:  # the type and text are what the demo shows
        text = str(err).splitlines()[0] if str(err) else ""
        if not text:  # a bare assert: say where, with its source line
            frame = traceback.extract_tb(err.__traceback__)[-1]
            text = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}: {frame.line}"
        return f"{type(err).__name__}: {text}"
    return "output equals the reference" if torch.equal(out, reference) else "wrong output"


def _step_us(run, repeats: int = 5) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            run()
        except Exception:  # noqa: BLE001 - a refused step costs what it ran
            pass
        samples.append((time.perf_counter() - start) * 1e6)
    return sorted(samples)[len(samples) // 2]


def replay() -> Replay:
    """Run every case, the fix and the reference; the guard's configuration is restored after."""
    from runtime_guard import hooks

    cls = sc.sglang().TorchNativeAttnBackend
    previous = hooks.configure(GuardConfig())  # the unguarded cases run with the guard off
    outcomes, costs = {}, {}
    try:
        target, draft, real, writing = _setting()
        reference_runner = sc.runner(target, draft.token_to_kv_pool_allocator)
        reference_runner.req_to_token_pool = draft.req_to_token_pool
        reference = _decode(sc.any_backend(cls, reference_runner), real, target)
        for name, (kind, config, env) in CASES.items():
            batch = real if kind == "real" else writing
            hooks.configure(config or GuardConfig())

            def run(batch=batch, config=config):
                return _decode(sc.any_backend(cls, draft), batch, target,
                               hooks if config else None)

            with _environment(env):
                outcomes[name] = _outcome(run, reference)
                costs[name] = _step_us(run)
        fixed, expected = _fixed_writing_step(hooks, cls)
    finally:
        hooks.configure(previous)
    diff = float((fixed.float() - expected.float()).abs().max())
    return Replay(outcomes, costs, bool(torch.equal(fixed, expected)), diff)


def _fixed_writing_step(hooks, cls):
    """The fix on the writing batch, and the target's own step on it, each on fresh pools (a
    writing step changes the pool it writes)."""
    outputs = []
    for fix in (True, False):
        target, draft, _, writing = _setting()
        if fix:
            hooks.configure(GuardConfig(mode="check", fix=True))
            outputs.append(_decode(sc.any_backend(cls, draft), writing, target, hooks))
        else:
            own = sc.runner(target, draft.token_to_kv_pool_allocator)
            own.req_to_token_pool = draft.req_to_token_pool
            outputs.append(_decode(sc.any_backend(cls, own), writing, target))
    return outputs


def keeps_swa_state() -> bool:
    """SGLang 0.5.13+ TorchNative keeps an SWA flag; before, its pool translated internally."""
    from runtime_guard.status import init_assigns

    return init_assigns(sc.sglang().TorchNativeAttnBackend, "use_sliding_window_kv_pool")


def report() -> str:
    """The replay as the lines ``poolguard demo`` prints."""
    if not keeps_swa_state():
        return "\nTorchNativeAttnBackend keeps no SWA state on this SGLang release: no replay."
    result = replay()
    lines = [
        "",
        "TorchNativeAttnBackend, end to end on the CPU (real __init__, init_forward_metadata and",
        "forward_decode under SGLang's frozen_kv_target_view; a FROZEN_KV draft built on its",
        "own pool, so its SWA flag is stale). The real batch is the one SGLang's FROZEN_KV",
        "worker builds (out_cache_loc None, no KV write): the stale flag is latent there.",
        "The writing batch gives the same backend write slots: the flag is live.",
        "",
        "| case | outcome | µs per step |",
        "| --- | --- | ---: |",
    ]
    for name, outcome in result.outcomes.items():
        lines.append(f"| {name} | {outcome[:150]} | {result.step_us[name]:.0f} |")
    lines.append(f"\nSGLANG_POOLGUARD_FIX=1 on the writing batch: output "
                 f"{'equals' if result.fixed_matches else 'differs from'} the target-pool "
                 f"reference (max abs diff {result.max_abs_diff:g}).")
    return "\n".join(lines)
