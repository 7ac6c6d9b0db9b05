"""The FROZEN_KV MTP pool swap end to end on a backend that runs on a CPU: TorchNative.

SGLang's own ``TorchNativeAttnBackend`` is built through its real ``__init__`` from real pools,
and its real ``init_forward_metadata`` and ``forward_decode`` run under SGLang's own
``frozen_kv_target_view``, three times: without the guard, with it, and with the fix. The
reference is the same decode step on a backend built by the target's runner. Only the model
runner is ours (a namespace carrying the attributes the constructor reads).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import NamedTuple

import torch

from runtime_guard.config import GuardConfig
from runtime_guard.demo import scenarios as sc

SEQ = [6, 5]  # tokens per request, the last one being decoded
LAYERS = (0, 1)  # layer 0 is a sliding-window layer, layer 1 a full one


class Replay(NamedTuple):
    """What each run did: an exception line, or the outputs and whether they match."""

    unguarded: str
    guarded: str
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
    batch.out_cache_loc = req_to_token[torch.arange(len(SEQ)), torch.tensor(SEQ) - 1].long()
    return target, draft, batch


def _decode(backend, batch, view_pool, hooks=None):
    """init_forward_metadata + forward_decode per layer, through the guard's hooks if given."""
    cls = type(backend)
    q = torch.linspace(-1, 1, len(SEQ) * 16).reshape(len(SEQ), 16).to(sc.DTYPE)
    k = torch.ones(len(SEQ), 1, 8, dtype=sc.DTYPE)
    outputs = []
    with sc.frozen_kv_view(batch, view_pool, backend):
        if hooks is None:
            backend.init_forward_metadata(batch)
        else:
            hooks.guard_metadata(cls.init_forward_metadata, backend, batch)
        for layer_id in LAYERS:
            args = (q, k, k.clone(), sc.layer(layer_id), batch)
            launch = backend.forward_decode if hooks is None else (
                lambda *a: hooks.guard_launch(cls.forward_decode, backend, *a))
            outputs.append(launch(*args))
    return torch.stack(outputs)


def _outcome(run) -> str:
    try:
        run()
    except Exception as err:  # the type and text are what the demo shows
        text = str(err).splitlines()[0] if str(err) else ""
        if not text:  # a bare assert: say where, with its source line
            frame = traceback.extract_tb(err.__traceback__)[-1]
            text = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}: {frame.line}"
        return f"{type(err).__name__}: {text}"
    return "no error (wrong output)"


def replay() -> Replay:
    """Run the three cases and the reference; the guard's configuration is restored after."""
    from runtime_guard import hooks

    cls = sc.sglang().TorchNativeAttnBackend
    previous = hooks.configure(GuardConfig())  # the unguarded case runs with the guard off
    try:
        target, draft, batch = _setting()
        reference_runner = sc.runner(target, draft.token_to_kv_pool_allocator)
        reference_runner.req_to_token_pool = draft.req_to_token_pool
        reference = _decode(sc.any_backend(cls, reference_runner), batch, target)
        unguarded = _outcome(lambda: _decode(sc.any_backend(cls, draft), batch, target))
        hooks.configure(GuardConfig(mode="check"))
        guarded = _outcome(lambda: _decode(sc.any_backend(cls, draft), batch, target, hooks))
        hooks.configure(GuardConfig(mode="check", fix=True))
        fixed = _decode(sc.any_backend(cls, draft), batch, target, hooks)
    finally:
        hooks.configure(previous)
    diff = float((fixed.float() - reference.float()).abs().max())
    return Replay(unguarded, guarded, bool(torch.equal(fixed, reference)), diff)


def keeps_swa_state() -> bool:
    """SGLang 0.5.13+ TorchNative keeps an SWA flag; before, its pool translated internally."""
    from runtime_guard.status import init_assigns

    return init_assigns(sc.sglang().TorchNativeAttnBackend, "use_sliding_window_kv_pool")


def report() -> str:
    """The replay as the lines ``poolguard demo`` prints."""
    if not keeps_swa_state():
        return "\nTorchNativeAttnBackend keeps no SWA state on this SGLang release: no replay."
    result = replay()
    return "\n".join([
        "",
        "TorchNativeAttnBackend, end to end on the CPU (real __init__, init_forward_metadata and",
        "forward_decode under SGLang's frozen_kv_target_view; a FROZEN_KV draft built on its",
        "own pool):",
        f"  without the guard:       {result.unguarded}",
        f"  SGLANG_POOLGUARD=1:      {result.guarded}",
        f"  SGLANG_POOLGUARD_FIX=1:  output {'equals' if result.fixed_matches else 'differs from'}"
        f" the target-pool reference (max abs diff {result.max_abs_diff:g})",
    ])
