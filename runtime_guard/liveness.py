"""Live or latent: whether the launch about to run reads the inconsistent SWA state a check
found (design §4, issue 15 item 8).

Read from SGLang 0.5.23's sources, per backend row (``BackendSpec.state_read_only_to_write``):
TorchNative and Triton read their SWA flag only on the KV-write path
(``if flag and out_cache_loc is not None``: the full->SWA translation of the write slots) and
re-test the pool's type where they read KV, so a stale flag is never read by a launch that
writes no KV. A FROZEN_KV MTP draft's launches write none: its worker sets the forward batch's
``out_cache_loc`` to None (``frozen_kv_mtp_worker_v2.py``), and a caller may pass
``save_kv_cache=False``. Every other row's launches or metadata paths read the state to choose
page tables or translate read indices: live for every role. Pool routing and bounds problems
are about what the kernel reads: always live. The generic check cannot know: live.
"""

from __future__ import annotations

from typing import Any

from runtime_guard.backends import spec_for
from runtime_guard.checks import Problem

_STATE_KINDS = frozenset({"pool", "flag", "mapping"})  # the backend's own cached SWA state
_PREFIX = "poolguard: "


def writes_kv(forward_batch: Any, save_kv_cache: Any = True) -> bool:
    """Whether the launch writes K/V: it is asked to and the batch has write slots."""
    return bool(save_kv_cache) and getattr(forward_batch, "out_cache_loc", None) is not None


def is_latent(problem: Problem, backend: Any, forward_batch: Any, save_kv_cache=True) -> bool:
    """The problem is in state this launch never reads (see the module docstring)."""
    return (problem.kind in _STATE_KINDS and spec_for(type(backend)).state_read_only_to_write
            and not writes_kv(forward_batch, save_kv_cache))


def classify(problem: Problem, backend: Any, forward_batch: Any, save_kv_cache=True) -> Problem:
    """``problem`` with ``live`` set and its message saying live or latent, and why."""
    latent = is_latent(problem, backend, forward_batch, save_kv_cache)
    if latent:
        tag = (f"poolguard (latent: {type(backend).__name__} reads this state only to write KV "
               f"and this launch writes none, so its output is correct; stale for any launch "
               f"that writes): ")
    else:
        tag = "poolguard (live: this launch reads it): "
    message = problem.message
    if message.startswith(_PREFIX):
        message = tag + message[len(_PREFIX):]
    return problem._replace(live=not latent, message=message)
