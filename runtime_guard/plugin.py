"""SGLang plugin entry (group ``sglang.srt.plugins``, name ``poolguard``): registers the guard.

``load()`` runs inside ``sglang.srt.plugins.load_plugins()``, which then calls
``HookRegistry.apply_hooks()``. With ``SGLANG_POOLGUARD`` unset/0/off (and no
``SGLANG_POOLGUARD_FIX``) it returns before importing anything. Otherwise it registers AROUND
hooks on the trtllm MHA backend — ``__init__`` (role), the eager launches, and the metadata
paths including the CUDA-graph replay one — and, with ``SGLANG_POOLGUARD_FIX=1``, REPLACE
hooks that install the fixed backend classes. Registering twice is a no-op; a method missing
on this SGLang version is reported in one log line, never an exception.
"""

from __future__ import annotations

import importlib
import logging

from runtime_guard.config import GuardConfig, read_config
from runtime_guard.errors import PoolGuardConfigError

logger = logging.getLogger("runtime_guard")

BACKEND_MODULE = "sglang.srt.layers.attention.trtllm_mha_backend"
BACKEND = "TRTLLMHAAttnBackend"
DRAFT_BACKEND = "TRTLLMHAAttnMultiStepDraftBackend"
LAUNCH_METHODS = ("forward_decode", "forward_extend")
# The replay path is init_forward_metadata_out_graph from SGLang 0.5.13 on,
# init_forward_metadata_replay_cuda_graph before; capture has its own method before 0.5.13.
REPLAY_METHODS = ("init_forward_metadata_out_graph", "init_forward_metadata_replay_cuda_graph")
METADATA_METHODS = ("init_forward_metadata", "init_forward_metadata_capture_cuda_graph")


def load() -> None:
    """Entry point called by SGLang's plugin loader."""
    try:
        config = read_config()
    except PoolGuardConfigError as err:
        # SystemExit passes load_plugins()' `except Exception`: the server refuses to start
        # with this one line instead of running unguarded after a logged traceback.
        raise SystemExit(f"poolguard: {err}") from None
    if not config.guarding and not config.fix:
        return
    install(config)


def install(config: GuardConfig) -> None:
    """Register the hooks ``config`` asks for with SGLang's HookRegistry."""
    try:
        registry = importlib.import_module("sglang.srt.plugins.hook_registry")
        module = importlib.import_module(BACKEND_MODULE)
        upstream = getattr(module, BACKEND)
    except Exception as err:  # any SGLang without these: say so once, never crash the server
        logger.warning("poolguard: nothing guarded, cannot import %s: %s", BACKEND_MODULE, err)
        return
    from runtime_guard import hooks

    hooks.configure(config)
    plan, missing = [], []
    if config.fix:
        _plan_fixed_backend(plan, missing)
    if config.guarding:
        _plan_guard_hooks(upstream, hooks, plan, missing)
    for target, hook, kind in plan:
        _register_once(registry, module, target, hook, getattr(registry.HookType, kind))
    if missing:
        logger.warning("poolguard: not covered on this SGLang version: %s", "; ".join(missing))


def _plan_fixed_backend(plan: list, missing: list) -> None:
    try:
        from runtime_guard import fixed_backend
    except Exception as err:
        missing.append(f"fixed backend (SGLANG_POOLGUARD_FIX=1) cannot be built: {err}")
        return
    plan.append((f"{BACKEND_MODULE}.{BACKEND}", fixed_backend.FixedTRTLLMHAAttnBackend, "REPLACE"))
    plan.append(
        (
            f"{BACKEND_MODULE}.{DRAFT_BACKEND}",
            fixed_backend.FixedTRTLLMHAAttnMultiStepDraftBackend,
            "REPLACE",
        )
    )


def _plan_guard_hooks(upstream: type, hooks, plan: list, missing: list) -> None:
    prefix = f"{BACKEND_MODULE}.{BACKEND}."
    plan.append((prefix + "__init__", hooks.guard_init, "AROUND"))
    for name in LAUNCH_METHODS:
        if hasattr(upstream, name):
            plan.append((prefix + name, hooks.guard_launch, "AROUND"))
        else:
            missing.append(f"{BACKEND}.{name} is absent, its launches are unchecked")
    replay = [name for name in REPLAY_METHODS if hasattr(upstream, name)]
    if not replay:
        missing.append(f"no CUDA-graph replay method ({' / '.join(REPLAY_METHODS)}) on {BACKEND}")
    for name in replay + [n for n in METADATA_METHODS if hasattr(upstream, n)]:
        plan.append((prefix + name, hooks.guard_metadata, "AROUND"))


def _register_once(registry, module, target: str, hook, hook_type) -> None:
    """Register unless this hook is already pending or already applied on the target."""
    pending = getattr(registry.HookRegistry, "_hooks", {}).get(target, ())
    if any(registered is hook for _, registered, _ in pending):
        return
    if _already_applied(module, target, hook):
        return
    registry.HookRegistry.register(target, hook, hook_type)


def _already_applied(module, target: str, hook) -> bool:
    """True if the target is ``hook`` itself or a wrapper chain that closes over it."""
    path = target[len(BACKEND_MODULE) + 1:].split(".")
    current = module
    for part in path:
        current = getattr(current, part, None)
    while current is not None:
        cells = getattr(current, "__closure__", None) or ()
        if current is hook or any(_cell_is(cell, hook) for cell in cells):
            return True
        current = getattr(current, "__wrapped__", None)
    return False


def _cell_is(cell, hook) -> bool:
    try:
        return cell.cell_contents is hook
    except ValueError:  # an empty cell
        return False
