"""The guard's hooks, registered by the SGLang plugin entry point (``runtime_guard.entry``).

``start()`` runs inside ``sglang.srt.plugins.load_plugins()``, which then calls
``HookRegistry.apply_hooks()``; with ``SGLANG_POOLGUARD`` unset/0/off (and no
``SGLANG_POOLGUARD_FIX``) the entry point never imports this module. Otherwise, for every backend
class in ``runtime_guard.backends`` and every subclass of one that SGLang's attention and
hardware-backend packages ship (found at load), it registers AROUND hooks on ``__init__``
(role and allocator), the CUDA-graph state allocation, the metadata paths, every launch method
``AttentionBackend.forward`` dispatches and the KV write-buffer hand-out, on the class that
defines each; with ``SGLANG_POOLGUARD_FIX=1`` those hooks also re-derive the SWA state, and the
classes whose row names a ``fixed`` class are replaced by ``runtime_guard.fixed_backend``'s.
Classes defined after load are hooked the first time they run (``runtime_guard.late``).
Registering twice is a no-op; a class, module or method missing on this SGLang version is
reported in one log line, never an exception. When
the guard or the fix is on, one warning-level line says so (mode, action, fix and how many
backend classes are hooked): SGLang calls the loader before it configures logging, so only
that level reaches the server's stderr in every process.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import re
import sys
from pathlib import Path
from typing import NamedTuple

from runtime_guard.backends import (
    BACKENDS,
    GRAPH_STATE,
    LAUNCH,
    METADATA,
    WRITE_BUFFERS,
    BackendSpec,
    described,
    loaded_subclasses,
)
from runtime_guard.config import GuardConfig

logger = logging.getLogger("runtime_guard")

BASE_MODULE = "sglang.srt.layers.attention.base_attn_backend"
# Where SGLang keeps attention backends; subclasses of described classes are searched here.
BACKEND_PACKAGES = ("sglang.srt.layers.attention", "sglang.srt.hardware_backend")


class Coverage(NamedTuple):
    """What the installed SGLang lets the plugin do for one class (a row's, or a subclass)."""

    spec: BackendSpec
    cls: object  # the class, or None when it cannot be imported
    hooks: tuple  # (method, hook name) pairs that will be registered
    reason: str  # why the class or some of its launches are not covered ("" when all are)
    target: str = ""  # dotted path of the class the hooks go on


def load() -> None:
    """``runtime_guard.entry.load``, for callers that import this module themselves."""
    from runtime_guard.entry import load as entry_load

    entry_load()


def start(config: GuardConfig) -> None:
    """Register the hooks ``config`` (guard or fix on) asks for, and say so in one line."""
    hooked = install(config)
    if hooked is not None:
        logger.warning("poolguard: %s: %d of %d backend classes hooked", config.describe(),
                       hooked, len(BACKENDS))


def plan(config: GuardConfig) -> list:
    """Coverage of every row (importable or not) and every discovered subclass, in that
    order: what ``install`` registers and ``guard-status`` prints."""
    rows = [_row_class(spec) for spec in BACKENDS]
    found = subclasses()
    hooked = {cls for _, cls, _ in rows if cls is not None} | {cls for _, cls in found}
    covers = []
    for spec, cls, reason in rows:
        if cls is None:
            covers.append(Coverage(spec, None, (), reason, spec.target))
        else:
            covers.append(class_coverage(spec, cls, config, spec.target, hooked))
    for spec, cls in found:
        cover = class_coverage(spec, cls, config, _target_of(cls), hooked)
        if any(name != "__init__" for name, _ in cover.hooks):
            covers.append(cover)
    return covers


def _row_class(spec: BackendSpec) -> tuple:
    """(spec, its class or None, why not)."""
    try:
        module = importlib.import_module(spec.module)
    except Exception as err:  # absent on this release, or its kernel package is missing
        return spec, None, f"not importable here: {_one_line(err)}"
    cls = getattr(module, spec.name, None)
    if not isinstance(cls, type):
        return spec, None, f"absent from this release's {spec.module.rsplit('.')[-1]}"
    return spec, cls, ""


def class_coverage(spec: BackendSpec, cls: type, config: GuardConfig, target: str,
                   hooked: set) -> Coverage:
    """The hooks ``cls`` (described by ``spec``) gets: each method it defines, or inherits
    with no hooked class between it and the definer (that class's hook covers it)."""
    wanted = [("__init__", "guard_init")]
    if config.fix:
        wanted += [(name, "guard_graph_state") for name in GRAPH_STATE]
    wanted += [(name, "guard_metadata") for name in METADATA]
    # The base class's own launch and write-buffer bodies are stubs: nothing to guard there.
    stubs = [(name, "guard_write_buffers") for name in WRITE_BUFFERS]
    stubs += [(name, "guard_launch") for name in (launch_methods() if spec.launches else ())]
    wanted += [(name, hook) for name, hook in stubs
               if _definer(cls, name) not in (None, BASE_MODULE)]
    hooks = [(name, hook) for name, hook in wanted if _hookable(cls, name, hooked)]
    absent = [name for name in LAUNCH if spec.launches and not hasattr(cls, name)]
    reason = f"{', '.join(absent)} absent: those launches are unchecked" if absent else ""
    if target == spec.target and not any(_covers(cls, name, hooked) for name in METADATA):
        reason = (reason + "; " if reason else "") + "no metadata method to hook"
    return Coverage(spec, cls, tuple(hooks), reason, target)


def _hookable(cls: type, name: str, hooked: set) -> bool:
    for klass in cls.__mro__:
        if klass is not cls and klass in hooked:
            return False  # that class's own hook (defined or inherited there) covers it
        if name in vars(klass):
            return klass is not object
    return False


def _definer(cls: type, name: str):
    """The module of the class in ``cls``'s MRO that defines ``name``, or None."""
    return next((klass.__module__ for klass in cls.__mro__ if name in vars(klass)), None)


def _covers(cls: type, name: str, hooked: set) -> bool:
    """Some hooked class in ``cls``'s MRO gets a hook for ``name``."""
    return any(klass in hooked and _hookable(klass, name, hooked) for klass in cls.__mro__)


def _target_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_launches: list = []


def launch_methods() -> tuple:
    """The launch methods ``AttentionBackend.forward`` dispatches to, read from its source
    (Ascend's ``forward_mixed`` among them on 0.5.23); ``LAUNCH`` where it cannot be read."""
    if not _launches:
        try:
            base = importlib.import_module(BASE_MODULE).AttentionBackend
            source = inspect.getsource(inspect.unwrap(base.forward))
            found = tuple(dict.fromkeys(re.findall(r"self\.(forward_\w+)\(", source)))
        except Exception:  # no source (compiled install) or no base module: the known pair
            found = ()
        _launches.append(found or LAUNCH)
    return _launches[0]


def subclasses() -> list:
    """(row, class) for every subclass of a described class that SGLang's backend packages
    define. Modules are imported only when their text names a described class (the rest
    cannot subclass one); a module that does not import here is skipped."""
    for module in _candidate_modules({spec.name for spec in BACKENDS}):
        if module not in sys.modules:
            try:
                importlib.import_module(module)
            except Exception:  # a hardware package whose runtime is absent here
                continue
    found = []
    for cls in _loaded_subclasses():
        spec = described(cls)
        if spec is not None and _target_of(cls) != spec.target and "<" not in cls.__qualname__:
            found.append((spec, cls))
    return found


def _candidate_modules(names: set) -> list:
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b")
    modules = []
    for package in BACKEND_PACKAGES:
        for folder in getattr(_find(package), "submodule_search_locations", None) or ():
            for path in sorted(Path(folder).rglob("*.py")):
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if pattern.search(text):
                    relative = path.relative_to(folder).with_suffix("")
                    modules.append(".".join((package, *relative.parts)).removesuffix(".__init__"))
    return modules


def _find(package: str):
    try:
        return importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None


def _loaded_subclasses() -> list:
    """Every loaded subclass (transitively) of a described class, defined in a backend package."""
    roots = []
    for spec in BACKENDS:
        cls = getattr(sys.modules.get(spec.module), spec.name, None)
        if isinstance(cls, type):
            roots.append(cls)
    return [sub for sub in loaded_subclasses(*roots) if sub.__module__.startswith(BACKEND_PACKAGES)]


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
    for cover in plan(config):
        if cover.reason:
            missing.append(f"{cover.target.rsplit('.', 1)[-1]} ({cover.reason})")
        if cover.cls is None:
            continue
        hooked += bool(cover.hooks) and cover.target == cover.spec.target  # rows, of BACKENDS
        if config.fix and cover.spec.fixed and cover.target == cover.spec.target:
            _replace_with_fixed(registry, cover.spec, missing)
        for method, hook_name in cover.hooks:
            _register_once(registry, cover.target, method, getattr(hooks, hook_name))
    if config.guarding:  # classes the table does not name: one hook on the base's dispatch
        from runtime_guard import generic

        missing.extend(filter(None, [generic.register(registry)]))
    from runtime_guard import late  # classes loaded after this: hooked when they first run

    missing.extend(filter(None, [late.register(registry, launch_methods())]))
    if missing:
        logger.warning("poolguard: not covered on this SGLang version: %s", "; ".join(missing))
    return hooked


# HookRegistry has no public query of pending hooks, so the plugin remembers what it
# registered in this process; applied hooks are recognised on the patched method itself.
_registered: set = set()


def _replace_with_fixed(registry, spec: BackendSpec, missing: list) -> None:
    try:
        from runtime_guard import fixed_backend
    except Exception as err:
        missing.append(f"fixed {spec.name} cannot be built: {_one_line(err)}")
        return
    replacement = getattr(fixed_backend, spec.fixed)
    if (spec.target, replacement) in _registered:
        return
    _registered.add((spec.target, replacement))
    registry.HookRegistry.register(spec.target, replacement, registry.HookType.REPLACE)


def _register_once(registry, target: str, method: str, hook) -> None:
    """Register an AROUND hook unless it is already pending or applied on the target."""
    key = (f"{target}.{method}", hook)
    if key in _registered or _already_applied(target, method, hook):
        return
    _registered.add(key)
    registry.HookRegistry.register(key[0], hook, registry.HookType.AROUND)


def _already_applied(target: str, method: str, hook) -> bool:
    """True if the method is ``hook`` itself or a wrapper chain (another plugin's wrappers
    included) that closes over it."""
    module, _, name = target.rpartition(".")
    cls = getattr(sys.modules.get(module), name, None)
    current = vars(cls).get(method) if isinstance(cls, type) else None
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
