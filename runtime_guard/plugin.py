"""SGLang plugin entry (group ``sglang.srt.plugins``, name ``poolguard``): registers the guard.

``load()`` runs inside ``sglang.srt.plugins.load_plugins()``, which then calls
``HookRegistry.apply_hooks()``. With ``SGLANG_POOLGUARD`` unset/0/off (and no
``SGLANG_POOLGUARD_FIX``) it returns before importing anything. Otherwise, for every backend
class in ``runtime_guard.backends`` it registers AROUND hooks on ``__init__`` (role and
allocator), the CUDA-graph state allocation, the metadata paths and the eager launches; with
``SGLANG_POOLGUARD_FIX=1`` those hooks also re-derive the SWA state, and the trtllm classes are
replaced by ``runtime_guard.fixed_backend``'s. Registering twice is a no-op; a class, module or
method missing on this SGLang version is reported in one log line, never an exception. When
the guard or the fix is on, one warning-level line says so (mode, action, fix and how many
backend classes are hooked): SGLang calls the loader before it configures logging, so only
that level reaches the server's stderr in every process.
"""

from __future__ import annotations

import importlib
import logging
from typing import NamedTuple

from runtime_guard.backends import BACKENDS, GRAPH_STATE, BackendSpec
from runtime_guard.config import GuardConfig, read_config
from runtime_guard.errors import PoolGuardConfigError

logger = logging.getLogger("runtime_guard")

TRTLLM_MODULE = "sglang.srt.layers.attention.trtllm_mha_backend"
FIXED_CLASSES = {  # upstream class -> replacement in runtime_guard.fixed_backend
    "TRTLLMHAAttnBackend": "FixedTRTLLMHAAttnBackend",
    "TRTLLMHAAttnMultiStepDraftBackend": "FixedTRTLLMHAAttnMultiStepDraftBackend",
}


class Coverage(NamedTuple):
    """What the installed SGLang lets the plugin do for one described backend class."""

    spec: BackendSpec
    cls: object  # the class, or None when it cannot be imported
    hooks: tuple  # (method, hook name) pairs that will be registered
    reason: str  # why the class or some of its launches are not covered ("" when all are)


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
    hooked = install(config)
    if hooked is not None:
        logger.warning("poolguard: %s: %d of %d backend classes hooked", config.describe(),
                       hooked, len(BACKENDS))


def coverage(spec: BackendSpec, config: GuardConfig) -> Coverage:
    """Import ``spec``'s class and list the hooks it gets under ``config``."""
    try:
        module = importlib.import_module(spec.module)
    except Exception as err:  # absent on this release, or its kernel package is missing
        return Coverage(spec, None, (), f"not importable here: {_one_line(err)}")
    cls = getattr(module, spec.name, None)
    if not isinstance(cls, type):
        return Coverage(spec, None, (), f"absent from this release's {spec.module.rsplit('.')[-1]}")
    wanted = [("__init__", "guard_init")]
    if config.fix:
        wanted += [(name, "guard_graph_state") for name in GRAPH_STATE]
    wanted += [(name, "guard_metadata") for name in spec.metadata]
    wanted += [(name, "guard_launch") for name in spec.launch]
    hooks = [(name, hook) for name, hook in wanted if _hookable(cls, name)]
    absent = [name for name in spec.launch if not hasattr(cls, name)]  # inherited ones count
    reason = f"{', '.join(absent)} absent: those launches are unchecked" if absent else ""
    if not any(kind == "guard_metadata" for _, kind in hooks):
        reason = (reason + "; " if reason else "") + "no metadata method to hook"
    return Coverage(spec, cls, tuple(hooks), reason)


_DESCRIBED = frozenset(spec.name for spec in BACKENDS)


def _hookable(cls: type, name: str) -> bool:
    """The class has the method and it is not inherited from another described class (whose
    own hook already covers it: wrapping it twice would check every call twice)."""
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    if owner is None or owner is object:
        return False
    return owner is cls or owner.__name__ not in _DESCRIBED


def _one_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:160]


def install(config: GuardConfig) -> int | None:
    """Register the hooks ``config`` asks for with SGLang's HookRegistry; return how many
    backend classes get hooks (None when SGLang has no HookRegistry)."""
    try:
        registry = importlib.import_module("sglang.srt.plugins.hook_registry")
    except Exception as err:  # an SGLang without plugins: say so once, never crash the server
        logger.warning("poolguard: nothing guarded, cannot import SGLang's HookRegistry: %s", err)
        return None
    from runtime_guard import hooks

    hooks.configure(config)
    missing, hooked = [], 0
    for spec in BACKENDS:
        found = coverage(spec, config)
        if found.reason:
            missing.append(f"{spec.name} ({found.reason})")
        if found.cls is None:
            continue
        hooked += bool(found.hooks)
        if config.fix and spec.name in FIXED_CLASSES:
            _replace_with_fixed(registry, spec, missing)
        for method, hook_name in found.hooks:
            _register_once(registry, spec, method, getattr(hooks, hook_name))
    if config.guarding:  # classes the table does not name: one hook on the base's dispatch
        from runtime_guard import generic

        missing.extend(filter(None, [generic.register(registry)]))
    if missing:
        logger.warning("poolguard: not covered on this SGLang version: %s", "; ".join(missing))
    return hooked


def _replace_with_fixed(registry, spec: BackendSpec, missing: list) -> None:
    try:
        from runtime_guard import fixed_backend
    except Exception as err:
        missing.append(f"fixed {spec.name} cannot be built: {_one_line(err)}")
        return
    replacement = getattr(fixed_backend, FIXED_CLASSES[spec.name])
    pending = registry.HookRegistry._hooks.get(spec.target, ())
    if not any(hook is replacement for _, hook, _ in pending):
        registry.HookRegistry.register(spec.target, replacement, registry.HookType.REPLACE)


def _register_once(registry, spec: BackendSpec, method: str, hook) -> None:
    """Register an AROUND hook unless it is already pending or applied on the target."""
    target = f"{spec.target}.{method}"
    pending = getattr(registry.HookRegistry, "_hooks", {}).get(target, ())
    if any(registered is hook for _, registered, _ in pending):
        return
    if _already_applied(spec, method, hook):
        return
    registry.HookRegistry.register(target, hook, registry.HookType.AROUND)


def _already_applied(spec: BackendSpec, method: str, hook) -> bool:
    """True if the method is ``hook`` itself or a wrapper chain that closes over it."""
    cls = getattr(importlib.import_module(spec.module), spec.name, None)
    current = vars(cls).get(method) if cls is not None else None
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
