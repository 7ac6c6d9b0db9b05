"""Backend classes defined or imported after the plugin loaded: hooked the first time one runs.

The plugin registers its hooks at load, on the classes loaded then. A class defined later (a
module the model imports lazily, a factory, a class made per pool) that overrides a launch
method, a metadata method or ``forward`` itself would launch past them. Every forward publishes
its attention backend in SGLang's ``ForwardContext`` (``set_forward_context``; ``RadixAttention``
reads it back to launch, so no model layer launches outside one), and every launch through the
base dispatch or through a table class's metadata hook passes the guard: at those points a
class not seen before is covered as the plugin covers classes at load, through SGLang's
``HookRegistry`` (registered, then applied at once), before its launch runs. Its inner
backends are covered with it.

Once per class: a class seen costs one set lookup. A class defined inside a function (no
importable path) is reached through an alias in this module, which ``HookRegistry`` resolves
like any other target. Nothing here runs unless the plugin registered it (guard or fix on).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from typing import Any, Optional

from runtime_guard import generic, hooks
from runtime_guard.backends import GRAPH_STATE, METADATA, WRITE_BUFFERS, described
from runtime_guard.seen import SEEN, set_cover

logger = logging.getLogger("runtime_guard")

CONTEXT_MODULE = "sglang.srt.model_executor.forward_context"
CONTEXT_SETTER = "set_forward_context"
# "registry": SGLang's hook_registry module; "launches": the methods the base dispatches
_state: dict = {}
_aliases: dict = {}  # class -> its alias name in this module's globals
_MAX_INNER_DEPTH = 3


def register(registry, launches: tuple) -> Optional[str]:
    """Turn late coverage on (``launches``: the launch methods the base class dispatches) and
    hook ``set_forward_context`` once; return why that cannot be hooked, or None."""
    _state.update(registry=registry, launches=launches)
    set_cover(cover)
    try:
        module = importlib.import_module(CONTEXT_MODULE)
    except Exception as err:  # an SGLang without a forward context: the other triggers remain
        return f"late classes seen only at launch: {type(err).__name__}: {err}"[:200]
    target = f"{CONTEXT_MODULE}.{CONTEXT_SETTER}"
    pending = getattr(registry.HookRegistry, "_hooks", {}).get(target, ())
    if not (any(hook is guard_context for _, hook, _ in pending)
            or generic.wraps(getattr(module, CONTEXT_SETTER, None), guard_context)):
        registry.HookRegistry.register(target, guard_context, registry.HookType.AROUND)
    return None


def guard_context(original, ctx, *args, **kwargs):
    """AROUND ``set_forward_context``: cover the backend this forward will launch on."""
    backend = getattr(ctx, "attn_backend", None)
    if backend is not None and type(backend) not in SEEN:
        cover_backend(backend)
    return original(ctx, *args, **kwargs)


def cover_backend(backend: Any, depth: int = 0) -> None:
    """Cover ``backend``'s class and the classes of the inner backends it holds."""
    cover(type(backend))
    if depth >= _MAX_INNER_DEPTH:
        return
    for child in _inner_backends(backend):
        if type(child) not in SEEN:
            cover_backend(child, depth + 1)


def cover(cls: type) -> None:
    """Hook what ``cls`` runs that no hook covers yet (once per class; a no-op until the
    plugin registered late coverage). Never raises: what cannot be hooked is logged once."""
    registry = _state.get("registry")
    if registry is None or cls in SEEN:
        return
    SEEN.add(cls)
    try:
        wanted = late_hooks(cls)
        for definer, method, hook in wanted:
            registry.HookRegistry.register(f"{_target(definer)}.{method}", hook,
                                           registry.HookType.AROUND)
        if wanted:
            registry.HookRegistry.apply_hooks()
            logger.info("poolguard: %s, defined after the plugin loaded, hooked: %s",
                        cls.__qualname__, ", ".join(f"{d.__qualname__}.{m}" for d, m, _ in wanted))
    except Exception as err:  # noqa: BLE001 - a class we cannot hook must not stop serving
        logger.warning("poolguard: cannot hook %s (defined after the plugin loaded): %s: %s",
                       cls.__qualname__, type(err).__name__, err)


def late_hooks(cls: type) -> list:
    """(defining class, method, hook) for what ``cls`` would run unguarded: for a class the
    table describes (a subclass of a row), each launch, metadata, write-buffer (and, with the
    fix, graph-state) method and its own ``forward``, where the class defining it is not
    SGLang's base and is not hooked already; for any other class, with the guard on, the
    ``forward`` it runs instead of the base dispatch (``generic.dispatch_definer``)."""
    config = hooks.current_config()
    spec = described(cls)
    if spec is None:
        if not config.guarding:
            return []
        definer = generic.dispatch_definer(cls)
        found = [] if definer is None else [(definer, generic.DISPATCH, generic.guard_dispatch)]
        return found + [(definer, name, generic.guard_graph_metadata)
                        for definer, name in generic.graph_metadata_definers(cls)]
    wanted = [(name, hooks.guard_metadata) for name in METADATA]
    wanted += [(name, hooks.guard_graph_state) for name in GRAPH_STATE if config.fix]
    wanted += [(name, hooks.guard_write_buffers) for name in WRITE_BUFFERS]
    if spec.launches:
        wanted += [(name, hooks.guard_launch) for name in _state["launches"]]
        if generic.dispatch_definer(cls, described_too=True) is not None:
            wanted.append((generic.DISPATCH, hooks.guard_launch))  # its own dispatch
    found = []
    for name, hook in wanted:
        definer = next((k for k in cls.__mro__ if name in vars(k)), None)
        if definer is None or definer is object or definer.__module__ == generic.BASE_MODULE:
            continue  # absent, or the base class's stub: nothing runs there
        if not generic.wraps(vars(definer)[name], hook):
            # On the class defining it when that is a table class's subclass (its subclasses
            # share the hook); a mixin's method is hooked on this class only, never for
            # classes the table does not describe.
            found.append((definer if described(definer) else cls, name, hook))
    return found


def _target(cls: type) -> str:
    """A dotted path ``HookRegistry`` resolves to ``cls``: its own, or an alias kept here."""
    own = f"{cls.__module__}.{cls.__qualname__}"
    try:
        if "<" not in own and pkgutil.resolve_name(own) is cls:
            return own
    except Exception:  # noqa: BLE001 - a module that cannot be re-imported by name
        pass
    alias = _aliases.get(cls)
    if alias is None:
        alias = _aliases[cls] = f"_late_{len(_aliases)}_{cls.__name__}"
        globals()[alias] = cls
    return f"{__name__}:{alias}"


def _inner_backends(backend: Any) -> list:
    """Backends ``backend`` holds in its attributes (directly, or in a list, tuple or dict)."""
    found = []
    for value in list(getattr(backend, "__dict__", {}).values()):
        items = value.values() if isinstance(value, dict) else value if isinstance(
            value, (list, tuple)) else (value,)
        found += [item for item in items if generic.is_backend(item) and item is not backend]
    return found
