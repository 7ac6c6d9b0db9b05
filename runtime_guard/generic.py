"""The generic guard: backend classes no row of ``runtime_guard.backends`` names.

One AROUND hook on SGLang's ``AttentionBackend.forward`` (the dispatch to ``forward_decode`` /
``forward_extend`` / ``forward_mixed`` every backend inherits) checks, before the launch, that
the backend's pool state belongs to the pool the launch reads (``backend.token_to_kv_pool``, or
the forward batch's on releases whose backends hold none):

* every attribute holding a KV pool, a method bound to one or a function whose closure cells,
  defaults or own attributes captured one (bound to the backend with ``types.MethodType``
  too) names the active pool or one of its sub-pools (an ``SWAKVPool``'s full and SWA pools);
  so do those of its helpers and record objects (plain objects, dataclasses, namespaces,
  ``__slots__`` classes, partials' arguments, what an object only C code reads holds, as an
  ``itertools`` iterator: two levels deep), of pools in its lists, tuples and dicts (a
  ``defaultdict``'s default factory too, a dict's keys: one of them must be the active pool;
  three deep), of functions' default arguments as of their cells, of its class attributes, of
  the registry entry a property looks up by ``id(self)``, and of its inner backends; one named
  for an SWA pool or mapping (or the sliding window's: ``window_pool``), or inside state the
  code derives from SWA state, is not None while the launch reads an SWA pool; a model runner
  is no helper (it holds its own role's pool), but where the code of the object keeping it
  reads its ``token_to_kv_pool`` after ``__init__`` (a launcher's method), or a function
  keeping it reads it (a stored getter, ``lambda: model_runner.token_to_kv_pool``), that pool
  is checked too;
* so do the module globals the class's code reads (a pool set with ``global``, a context
  variable's value, what it reads off a module ``threading.local``) and the frames of the
  generators it keeps (what they were started with), and a bool it sets with ``global`` from
  an SWA pool test says what the active pool is, as does an item of a module container its
  code sets to a value picked by such a test (``_KERNELS["decode"] = _window if is_swa(pool)
  else _dense``: a kernel table);
* every boolean the class's own code decides from an SWA pool or allocator type, whatever it
  is called (the lint's analysis of the class, ``runtime_guard.provenance``), says what the
  active pool is, and so does a verdict kept as a string, number, enum member or a module
  function picked by the test (an identity translator beside the pool's), or kept in
  another type (a number's or a one-element tensor's truth, a pool class); so does a bool
  inside what it holds that the holder's own code decides from such a test (a metadata
  builder's ``self.translated = is_swa(pool)``, a step wrapper's verdict behind the bound
  method a step keeps, a function's default or cell, ``windowed=is_swa(pool)``); any other
  bool named for SWA or a window does not say "not SWA" while the launch reads an SWA layer
  (True beside a full pool may be model geometry, ``has_swa``).

A class outside SGLang's packages whose ``forward`` bypasses that dispatch gets the same hook
on its own ``forward`` (``dispatch_overrides``).

Which attributes to read is discovered once per instance (two backends of one class may hold
different things: a target's filled table, a draft's empty one; and again when its ``__dict__``
grew) from what it holds, not from a list of names: a new backend is covered the day it is
installed. What the class's code proves is read once per class (``provenance``). Classes the
table describes are skipped here (their own hooks check them against their row). The generic
check cannot tell which attributes a launch reads, so what it finds is reported as live (see
the README's operators section).
"""

from __future__ import annotations

import collections
import collections.abc
import contextvars
import enum
import functools
import gc
import inspect
import itertools
import operator
import re
import sys
import threading
import types
import weakref
from typing import Any, NamedTuple, Optional

from lint_rules.rules._vocab import (
    ACTIVE_POOL,
    ALLOCATOR,
    ALLOCATOR_POOL,
    is_flag_name,
    is_swa_word,
)
from runtime_guard import seen
from runtime_guard.backends import BACKENDS, loaded_subclasses
from runtime_guard.checks import Problem, active_pool, describe_backend, describe_pool, is_swa_pool
from runtime_guard.pools import is_base_swa_kv_pool_class

BASE_MODULE = "sglang.srt.layers.attention.base_attn_backend"
PACKAGES = ("sglang.srt.layers.attention", "sglang.srt.hardware_backend")  # where backends live
DISPATCH = "forward"  # AttentionBackend.forward: the one method every launch passes through
_POOL_BASE = "KVCache"  # SGLang's base class of every token-to-KV pool
_BACKEND_BASE = "AttentionBackend"
_OURS = "_poolguard"  # attributes the guard itself keeps on a backend
_DESCRIBED = frozenset(spec.name for spec in BACKENDS)
_MAX_INNER_DEPTH = 3  # wrappers of wrappers; deeper nesting is not checked


class Layout(NamedTuple):
    """Where one backend class keeps pool state, read off an instance once."""

    direct: tuple  # attributes that hold a pool, a pool method or a closure over one, or None
    swa_named: frozenset  # those of them named for an SWA pool or mapping: None is stale there
    nested: tuple  # (attribute, steps, path, swa-named): pools inside helpers and containers
    flags: tuple  # (attribute, negated): flags the class's code decides from an SWA pool test
    soft: tuple  # (attribute, steps, path, negated): other bools named for SWA or a window
    class_nested: tuple  # (attribute, steps, path, swa-named): pools held by class attributes
    class_flags: tuple  # (attribute, negated): class attributes the code decides as flags
    tensors: tuple  # (attribute, steps, path, proven): tensors that may be a pool's or a copy
    inner: tuple  # (attribute, steps, path): inner backends, or lists/tuples/dicts of them
    slots: tuple  # (slot, swa-named): the class's own __slots__ holding a pool, or None
    choices: tuple  # (attribute, method if SWA, method if not): its code chose one by pool type
    verdicts: tuple  # (attribute, value if SWA, value if not): a flag kept as a string or enum
    registries: tuple  # (steps, path, swa-named): pools a property reads off a registry entry
    rest: bool  # any of the fields from slots to registries, or outside
    trivial: bool  # nothing but the pool the launch reads: an inner backend checked inline
    # (steps from the backend, path, swa-named, negated or None): module globals the class's
    # code reads holding a pool (None) or set from an SWA pool test (a flag: negated or not)
    outside: tuple = ()
    # (attribute, steps, path, negated): bools inside what it holds that the code of their
    # holder proves SWA verdicts (a helper object's class, a function's defaults and cells)
    nested_flags: tuple = ()
    # (attribute, steps, path, proven): tensors class attributes hold (``_maps[cls]``), judged
    # as the instance's are (``tensors``)
    class_tensors: tuple = ()


_POOL, _METHOD, _PARTIAL, _FUNCTION, _WEAKREF, _TENSOR, _BACKEND, _OTHER, _CACHED = range(9)
# State kept where a backend's ``__dict__`` does not show it: a ``weakref.proxy`` (its type is
# ``weakproxy``, yet every read reaches the object), a suspended generator or coroutine (its
# frame holds what it was started with), a context variable (its value in this context), a
# builtin method bound to one of these (``reader.send``).
_PROXY, _FRAME, _CONTEXT, _BUILTIN = range(9, 13)
_PROXIES = (weakref.ProxyType, weakref.CallableProxyType)
_FRAMES = {types.GeneratorType: ("gi_frame", "gi_code"),
           types.CoroutineType: ("cr_frame", "cr_code"),
           types.AsyncGeneratorType: ("ag_frame", "ag_code")}
# functools.lru_cache's wrapper type, taken from one (functools names it only privately); its
# ``__wrapped__`` is the function or bound method it caches.
_LRU_WRAPPER = type(functools.lru_cache(maxsize=1)(len))
_kinds: dict = {}  # type -> one of the kinds above
# id(backend) -> (backend, len(__dict__), Layout): read off each instance, since two of one
# class may hold different things (a target's filled table, a draft's empty one)
_layouts: dict = {}
_MAX_LAYOUTS = 256  # instances remembered at once (a server has a handful; tests make many)
_generic: dict = {}  # class -> whether the generic check applies (not described by the table)
_members: dict = {}  # id(active pool) -> Active
_tensors: dict = {}  # id(active pool) -> (pool, PoolTensors)
_verdicts: dict = {}  # (id(tensor), id(active pool)) -> (tensor, stale?) for tensors not its own
_NEGATED = ("no_", "not_", "skip_", "disable_", "without_")  # a flag that is True off SWA
_RECORD_DEPTH = 2  # records in records (a helper's config); deeper is not searched
_NEST_DEPTH = 3  # containers in containers (a tuple of dicts of lists), beside the records
_RECORD_ITEMS = 64  # items of one container or record read at discovery
# Objects SGLang builds from the model and the command line, never from a pool: their flags
# are the model's geometry (a draft's config says what the draft model is).
_CONFIG_MODULES = ("sglang.srt.configs", "sglang.srt.server_args", "transformers")


def _kind(value: Any) -> int:
    cls = type(value)
    kind = _kinds.get(cls)
    if kind is None:
        names = {klass.__name__ for klass in cls.__mro__}
        kind = (_POOL if _POOL_BASE in names else _BACKEND if _BACKEND_BASE in names
                else _METHOD if cls is types.MethodType
                else _FUNCTION if cls is types.FunctionType
                else _WEAKREF if issubclass(cls, weakref.ref)
                else _PARTIAL if issubclass(cls, functools.partial)
                else _CACHED if cls is _LRU_WRAPPER
                else _TENSOR if "Tensor" in names and cls.__module__.startswith("torch")
                else _PROXY if cls in _PROXIES
                else _FRAME if cls in _FRAMES
                else _CONTEXT if cls is contextvars.ContextVar
                else _BUILTIN if cls in (types.BuiltinMethodType, types.MethodWrapperType)
                else _OTHER)
        _kinds[cls] = kind
    return kind


def is_backend(value: Any) -> bool:
    """Whether ``value`` is an attention backend (of a class named like SGLang's base)."""
    return _kind(value) == _BACKEND


def pool_of(value: Any) -> Any:
    """The KV pool ``value`` is or is bound to (a bound method, a partial of one, a function
    whose closure cells or defaults hold one), or None."""
    kind = _kind(value)
    if kind == _POOL:
        return value
    if kind == _METHOD:
        owner = value.__self__
        if _kind(owner) == _POOL:
            return owner
        # A function bound to another object (``types.MethodType(closure, backend)``): what its
        # function captured, one level (a pool or a method of one: no cycle through methods).
        function = value.__func__
        return next((pool for pool in map(_bound_pool, _captured(function)) if pool), None) if (
            type(function) is types.FunctionType) else None
    if kind == _PARTIAL:  # a method of a pool, or a function given a pool as an argument
        return next((pool for pool in map(pool_of, (value.func, *value.args,
                                                    *value.keywords.values())) if pool), None)
    if kind == _FUNCTION:  # what it captured when it was defined, not what it reads live
        return next((pool for pool in map(_captured_pool, _captured(value)) if pool), None)
    if kind == _WEAKREF:
        return _captured_pool(value())
    if kind == _CACHED:  # a cached pool method, or a cached closure over a pool
        return pool_of(value.__wrapped__)
    if kind == _PROXY:
        return _captured_pool(_referent(value))
    return None


def _referent(proxy: Any) -> Any:
    """The object a ``weakref.proxy`` stands for (None once it is gone): every attribute read
    is forwarded, so a bound method read through it is bound to the object itself."""
    try:
        return proxy.__getattribute__.__self__
    except ReferenceError:
        return None


def _captured(function) -> tuple:
    """What ``function`` holds: its closure cells, defaults and own attributes (``kernel.kv_pool
    = pool``: a function object keeps state like any other)."""
    cells = tuple(_cell(cell) for cell in function.__closure__ or ())
    return (cells + (function.__defaults__ or ()) + tuple((function.__kwdefaults__ or {}).values())
            + tuple(vars(function).values()))


def _bound_pool(value: Any) -> Any:
    """``value`` if it is a pool, the pool it is bound to if it is a method of one, else None."""
    kind = _kind(value)
    if kind == _METHOD:
        value = value.__self__
    return value if _kind(value) == _POOL else None


def _captured_pool(value: Any) -> Any:
    # (no cycles: a function's, a weak reference's own captures are not followed)
    return pool_of(value) if _kind(value) not in (_FUNCTION, _WEAKREF, _PROXY) else None


def is_generic(cls: type) -> bool:
    """Whether no class in ``cls``'s MRO is described by the table (the generic check applies)."""
    known = _generic.get(cls)
    if known is None:
        known = _generic[cls] = not any(k.__name__ in _DESCRIBED for k in cls.__mro__)
    return known


def layout_of(backend: Any, active: Any = None) -> Layout:
    """The cached layout of ``backend`` (re-read when its ``__dict__`` changed size);
    ``active``: the pool the discovering launch reads (see ``discover``)."""
    state = backend.__dict__
    layout = _cached_layout(backend, state)
    if layout is None:
        layout = discover(state, type(backend), _own_slots(backend), active, backend)
        if len(_layouts) >= _MAX_LAYOUTS:
            _layouts.clear()
        _layouts[id(backend)] = (backend, len(state), layout)
    return layout


def _cached_layout(backend: Any, state: dict) -> Optional[Layout]:
    found = _layouts.get(id(backend))
    return found[2] if found is not None and found[0] is backend and found[1] == len(
        state) else None


def discover(state: dict, cls: Optional[type] = None, slot_state: Optional[dict] = None,
             active: Any = None, backend: Any = None) -> Layout:
    """Read which attributes of one instance hold pool state (the slow part, once per instance).
    Pools are found by value (what an attribute holds), flags by how ``cls``'s code computes
    them (``runtime_guard.provenance``), other SWA- or window-named bools by name. With
    ``active`` (the pool the first launch reads), a K/V-buffer-like tensor the code does not
    derive from a pool is judged only if it is like one of that pool's tensors: a backend's
    pools keep their geometry, and an output buffer need not cost every launch a check.
    With ``backend`` (the instance), the registry entries its properties return are read."""
    from runtime_guard.provenance import proven

    code = proven(cls, _base_of(cls)) if cls is not None else None
    # Without the class's code, any bool named for SWA or a window is a soft flag; with it,
    # only the vocabulary's flag names the code does not prove (``has_swa``) are.
    soft_name = _soft_name if code is None else is_flag_name
    swa_state = code.swa_state if code is not None else frozenset()
    kept_values = _verdict_values(code, cls)
    # A proven flag kept in another type than bool (a pool class, a number, a one-element
    # tensor) is judged by what it says (``_truth``): negated as its name says, or as the
    # store's polarity does (``Proven.truths``).
    kept_flags = {} if code is None else {
        **{flag: flag.startswith(_NEGATED) for flag in code.flags}, **dict(code.truths)}
    direct, flags, verdicts = [], [], []
    found = _found()
    validated = code.validated if code is not None else frozenset()
    for name, value in state.items():
        if name.startswith(_OURS) or name in validated:  # (a memo refilled for each pool)
            continue
        if name in kept_flags and name not in kept_values and type(value) is not bool and (
                _truth(value) is not None):
            flags.append((name, kept_flags[name]))
        elif _kind(value) == _TENSOR:
            found.tensors.append((name, (), name, value))
        elif name in kept_values and type(value) is not bool and pool_of(value) is None:
            verdicts.append((name, *kept_values[name]))
        elif type(value) is bool:
            if code is not None and name in code.flags:
                flags.append((name, name.startswith(_NEGATED)))
            elif soft_name(name):
                found.soft.append((name, (), name, name.startswith(_NEGATED)))
        elif value is None:
            if _may_hold_pool(name) or name in swa_state:  # may be bound later
                direct.append(name)
        elif pool_of(value) is not None:
            direct.append(name)
        elif _kind(value) == _BACKEND or _all_backends(value):
            found.inner.append((name, (), name))
        elif _runner_pool_read(cls, name, value):
            found.nested.append((name, (_RUNNER_POOL,), f"{name}.{ACTIVE_POOL}", False))
        else:
            _search(name, value, (), name, 1, found)
    swa_named = frozenset(name for name in direct if _swa_slot_name(name) or name in swa_state)
    # An SWA slot left None inside state the code derives from a pool's SWA state (a
    # translator's table: None where the pool it was built from is not SWA).
    found.nested.extend((root, where, label, True) for root, where, label in found.nones
                        if root in swa_state)
    slots = tuple((name, _swa_slot_name(name)) for name, value in (slot_state or {}).items()
                  if (_may_hold_pool(name) if value is None else pool_of(value) is not None))
    class_nested, class_flags, class_tensors = _class_slots(
        cls, state, code.flags if code else frozenset(), swa_state)
    tensors = _judged_tensors(found.tensors, code, active)
    class_tensors = _judged_tensors(class_tensors, code, active)
    choices = tuple(choice for choice in (code.choices if code is not None else ())
                    if _kind(state.get(choice[0])) == _METHOD)
    registries = _registry_entries(cls, state, backend)
    outside = (_outside_state(cls) if cls is not None else ()) + _slot_records(slot_state)
    rest = bool(slots or found.nested or flags or found.soft or class_nested or class_flags
                or tensors or choices or verdicts or registries or outside or found.flags
                or class_tensors)
    inner = _distinct_inner(state, found.inner)
    trivial = not rest and not inner and set(direct) <= {ACTIVE_POOL}
    return Layout(tuple(direct), swa_named, tuple(found.nested), tuple(flags),
                  tuple(found.soft), class_nested, class_flags, tensors, inner, slots,
                  choices, tuple(verdicts), registries, rest, trivial, outside,
                  tuple(found.flags), class_tensors)


def _verdict_values(code, cls: Optional[type] = None) -> dict:
    """attr -> (value if SWA, value if not) for the flags ``code`` keeps as a string, number or
    enum member (``provenance.Proven.verdicts``): dotted names resolved in their module, items
    of a named container (``MODES[is_swa]``: a module constant, or ``self.MODES`` on ``cls``)
    read at its key. A module function picked by the test (``pool.translate_loc_from_full_to_swa
    if is_swa(pool) else _same_ids``) is a verdict too, where the other branch is another
    function or nothing the module names (a method of the pool tested: checked as a pool's)."""
    found = {}
    for attr, module, *branches in (code.verdicts if code is not None else ()):
        values = []
        for kind, value in branches:
            if kind in ("name", "item"):
                path, key = value if kind == "item" else (value, None)
                head, *rest = path.split(".")
                start = cls if head == "self" else vars(sys.modules.get(module, object)).get(head)
                value = _follow(start, [operator.attrgetter(part) for part in rest])
                if kind == "item":
                    value = _item(value, key)
            values.append(value)
        constants = len(values) == 2 and type(values[0]) is type(values[1]) is not bool and all(
            isinstance(value, (str, int, float, enum.Enum)) for value in values)
        if (constants or len(values) == 2 and _functions_picked(values)) and (
                values[0] != values[1]):
            found[attr] = tuple(values)
        elif len(values) == 2 and values[0] is not values[1] and all(map(_singleton, values)):
            found[attr] = tuple(values)  # two objects the module names: a strategy picked once
    return found


def _singleton(value: Any) -> bool:
    """An object a module names that is no constant, flag or pool: a strategy, a class."""
    return value is not None and not isinstance(value, (bool, str, int, float, enum.Enum)) and (
        pool_of(value) is None and _kind(value) not in (_TENSOR, _BACKEND))


def _functions_picked(values: list) -> bool:
    """Two branches of a pick of which one is a plain function and the other one or None."""
    kinds = [type(value) for value in values]
    return types.FunctionType in kinds and set(kinds) <= {types.FunctionType, type(None)}


def _item(container: Any, key: bool) -> Any:
    """``container[key]`` for a two-item sequence or a mapping (None when there is none)."""
    try:
        if isinstance(container, (tuple, list)):
            return container[int(key)] if len(container) == 2 else None
        return container[key] if isinstance(container, collections.abc.Mapping) else None
    except Exception:  # noqa: BLE001 - a mapping without that key: no verdict known
        return None


def _registry_entries(cls: Optional[type], state: dict, backend: Any) -> tuple:
    """(steps, path, swa-named) for the pools (and None SWA slots) a getter of ``cls`` returns
    for ``backend`` from state kept outside the instance: the registry entry a property looks
    up (``provenance.registry_lookup``: a module or class registry keyed by ``id(self)`` or
    ``self``), or what a property or a method taking only ``self`` computes by a lookup
    (``provenance.computed_lookup``: ``REG[(id(self), "kv")]``, ``_lookup(self)``, called
    again per launch). Steps start at the backend."""
    found = _found()
    for klass in (cls.__mro__ if cls is not None and backend is not None else ()):
        if klass.__name__ == _BACKEND_BASE or klass is object:
            break
        for name, value in vars(klass).items():
            getter = _lookup_getter(name, value, cls) if name not in state else None
            if getter is not None:
                label = name if isinstance(value, property) else f"{name}()"
                _search_entry(name, getter, backend, label, found)
    nested = found.nested + [(root, where, label, True) for root, where, label in found.nones
                             if _swa_slot_name(label)]
    return tuple((steps, path, swa) for _, steps, path, swa in nested)


def _lookup_getter(name: str, value: Any, cls: type):
    """A getter reading ``value``'s registry entry for a backend, or None (see above)."""
    from runtime_guard.provenance import computed_lookup, registry_lookup

    if isinstance(value, property) and value.fget is not None:
        function = value.fget
    elif isinstance(value, types.FunctionType) and not name.startswith("__") and _self_only(
            value):
        function = value
    else:
        return None
    lookup = registry_lookup(function) if isinstance(value, property) else None
    holder = _registry_holder(lookup, function, cls) if lookup else None
    if holder is not None:
        return _Entry(holder, lookup.by_id)
    return _Computed(function) if computed_lookup(function) else None


def _self_only(function) -> bool:
    """A method taking ``self`` and nothing it must be given."""
    code = function.__code__
    required = code.co_argcount - len(function.__defaults__ or ())
    return required == 1 and not code.co_kwonlyargcount and not (code.co_flags & 0x0C)


def _search_entry(name: str, getter, backend: Any, label: str, found: "_Found") -> None:
    """What ``getter`` returns for ``backend``: a pool (or None, in an SWA-named slot) itself,
    or the pools and SWA slots inside it."""
    try:
        entry = getter(backend)
    except Exception:  # noqa: BLE001 - no entry for this backend yet: nothing to read
        return
    if entry is None:
        found.nones.append((name, (getter,), label))
    elif pool_of(entry) is not None:
        found.nested.append((name, (getter,), label, _swa_slot_name(label)))
    else:
        _search(name, entry, (getter,), label, 1, found)


def _registry_holder(lookup, getter, cls: type):
    """The registry object ``lookup`` names: a global of the getter's module or an attribute
    of the class; None when it is not a mapping."""
    head, *rest = lookup.path
    start = cls if head == "self" else getattr(getter, "__globals__", {}).get(head)
    holder = _follow(start, [operator.attrgetter(part) for part in rest])
    return holder if isinstance(holder, collections.abc.Mapping) else None


_GLOBAL = "global "  # how a path into a module global starts (messages name no backend)


def _outside_state(cls: type) -> tuple:
    """``Layout.outside`` of ``cls``: the module globals its code reads (``provenance.
    globals_read``) that hold a pool, a method, partial, closure or weak reference of one, or
    None under a pool's name; a context variable's or ``threading.local``'s value there (a
    pool, or pools in what it holds); the same for the attributes it reads off a module or
    class of its package held as a global (``_State.kv_pool``); a bool the code sets with
    ``global`` (or on such a namespace) from an SWA pool test. Other globals (a module's dicts
    and records) may serve every backend of the module, the target's and the draft's alike,
    and are not judged."""
    from runtime_guard.provenance import globals_read

    read = globals_read(cls, _base_of(cls))
    found, entries = _found(), []
    for module, namespace, name, attrs in read.reads:
        value, steps = namespace.get(name), (_Global(namespace, name),)
        label = f"{_GLOBAL}{module}.{name}"
        if _namespace_of(value, cls):  # ``_State.kv_pool``, ``kv_state.CURRENT``: one level
            for attr in sorted(attrs):
                _judge_global(getattr(value, attr, None), steps + (operator.attrgetter(attr),),
                              f"{label}.{attr}", attr, (), entries, found)
        else:
            _judge_global(value, steps, label, name, attrs, entries, found)
    entries += [(steps, path, swa, None) for _, steps, path, swa in found.nested]
    for module, namespace, name, attr, polarity in read.verdicts:
        steps = (_Global(namespace, name),) + ((operator.attrgetter(attr),) if attr else ())
        path = f"{_GLOBAL}{module}.{name}" + (f".{attr}" if attr else "")
        entries.append((steps, path, False, not polarity))
    for module, namespace, name, key, if_swa, if_not in read.items:  # a kernel table's pick
        steps = (_Global(namespace, name), operator.itemgetter(key))
        entries.append((steps, f"{_GLOBAL}{module}.{name}[{key!r}]", False, (if_swa, if_not)))
    return tuple(entries)


def _slot_records(slot_state: Optional[dict]) -> tuple:
    """``Layout.outside`` entries for pools inside what the backend's own ``__slots__`` hold (a
    record, a container, a generator, a context variable): slots live outside ``__dict__``, so
    their steps start at the backend (``Layout.slots`` has the pools they hold directly)."""
    found = _found()
    for name, value in (slot_state or {}).items():
        if value is not None and pool_of(value) is None and _kind(value) not in (
                _TENSOR, _BACKEND) and type(value) is not bool:
            _search(None, value, (operator.attrgetter(name),), name, 1, found)
    return tuple((steps, path, swa, None) for _, steps, path, swa in found.nested)


def _judge_global(value, steps, label, name, attrs, entries: list, found: "_Found") -> None:
    """The entries for one global (or a namespace's attribute) the code reads: a pool-bound
    value or None under a pool's name, a context variable's value, what the code reads off a
    ``threading.local`` (``attrs``) and only that: its other attributes may be another
    backend class's."""
    if _kind(value) == _CONTEXT:
        steps, label, value = steps + (_CONTEXT_VALUE,), label + ".get()", value.get(None)
        if value is not None and pool_of(value) is None:
            _search(None, value, steps, label, 1, found)
            return
    elif isinstance(value, threading.local):
        for attr in sorted(attrs):
            item = getattr(value, attr, None)
            where, path = steps + (operator.attrgetter(attr),), f"{label}.{attr}"
            if (item is None and _may_hold_pool(attr)) or pool_of(item) is not None:
                entries.append((where, path, _swa_slot_name(attr), None))
            elif item is not None:
                _search(None, item, where, path, 2, found)
        return
    if (value is None and _may_hold_pool(name)) or pool_of(value) is not None:
        entries.append((steps, label, _swa_slot_name(name), None))


def _namespace_of(value: Any, cls: type) -> bool:
    """A module or a class of ``cls``'s own package used as a namespace of state (not a backend
    class: its state is checked as an inner backend's or its own)."""
    top = cls.__module__.partition(".")[0]
    if isinstance(value, types.ModuleType):
        return value.__name__.partition(".")[0] == top
    return (isinstance(value, type) and value.__module__.partition(".")[0] == top
            and _BACKEND_BASE not in {klass.__name__ for klass in value.__mro__})


class _Global(NamedTuple):
    """A module global's current value (whatever it is asked of: a step from the backend)."""

    namespace: dict
    name: str

    def __call__(self, _backend):
        return self.namespace.get(self.name)


class _Entry(NamedTuple):
    """The entry of ``registry`` for a backend (by its id, or itself), or None."""

    registry: Any
    by_id: bool

    def __call__(self, backend):
        return self.registry.get(id(backend) if self.by_id else backend)


class _Computed(NamedTuple):
    """What a computing getter (a property's, or a method taking only ``self``) returns."""

    function: Any

    def __call__(self, backend):
        return self.function(backend)


def _judged_tensors(candidates: list, code, active: Any = None) -> tuple:
    """(attribute, steps, path, proven) for the tensors held that a check can judge: those the
    class's code derives from a pool's SWA state (``proven``: compared by shape, so a converted
    copy counts), those named for an SWA pool or mapping, and 2-D or larger floating tensors
    (a K/V buffer or a view of one). A tensor the code refreshes in place in a method other
    than ``__init__`` (``self.x.copy_(...)`` per forward) is kept current by it: not judged."""
    swa_state = code.swa_state if code is not None else frozenset()
    refreshed = code.refreshed if code is not None else frozenset()
    clean = dict(code.fields) if code is not None else {}
    held = pool_tensors(active) if active is not None else None
    judged = []
    for root, steps, path, tensor in candidates:
        # (but a field of it the analysis knows holds nothing derived: ``meta.seqlens``)
        proven = root in swa_state and not any(
            path == f or path.startswith((f + ".", f + "[")) for f in clean.get(root, ()))
        if root in refreshed:
            continue
        if proven or _swa_slot_name(path) or (
                tensor.dim() >= 2 and tensor.is_floating_point() and (
                    held is None or _like_held(tensor, held))):
            judged.append((root, steps, path, proven))
    return tuple(judged)


def _like_held(tensor: Any, held: "PoolTensors") -> bool:
    return ((tuple(tensor.shape), tensor.dtype) in held.shapes
            or (tensor.numel(), tensor.dtype) in held.sizes)


def _distinct_inner(state: dict, inner: list) -> tuple:
    """The inner-backend entries, less an attribute whose backend a list, tuple or dict entry
    also holds (``attn_backend_list`` beside ``decode_backend``): each is checked once."""
    in_containers = {id(child) for name, steps, _ in inner if not steps
                     for _, child in _members_of(state.get(name)) or ()}
    return tuple(entry for entry in inner if entry[1] or _members_of(state.get(entry[0]))
                 is not None or id(state.get(entry[0])) not in in_containers)


_SEQUENCES = (list, tuple, collections.deque)


def _members_of(value: Any):
    """(path suffix, item) pairs of a container: a list, tuple or deque (``[i]``), a dict or
    any other mapping (``types.MappingProxyType``, ``WeakValueDictionary``: ``[key]``), a set
    (``WeakSet`` too: ``{i}``, its i-th in iteration order); None for anything else."""
    if isinstance(value, dict) or (not isinstance(value, _SEQUENCES) and isinstance(
            value, collections.abc.Mapping)):
        return [(f"[{key!r}]", item) for key, item in list(value.items())]
    if isinstance(value, _SEQUENCES):
        return [(f"[{index}]", item) for index, item in enumerate(value)]
    if isinstance(value, collections.abc.Set):
        return [(f"{{{index}}}", item) for index, item in enumerate(list(value))]
    return None


class _Found(NamedTuple):
    """What ``_search`` collects, in the shapes of ``Layout``'s fields of those names
    (``tensors``: candidates, with the tensor, for ``_judged_tensors``)."""

    nested: list
    soft: list
    inner: list
    tensors: list
    nones: list  # (root, steps, path): None items, SWA slots where the root is SWA state
    flags: list  # (root, steps, path, negated): bools the holder's code proves SWA verdicts


def _found() -> _Found:
    return _Found([], [], [], [], [], [])


def _base_of(cls: type) -> Optional[type]:
    return next((k for k in cls.__mro__ if k.__name__ == _BACKEND_BASE), None)


def _may_hold_pool(name: str) -> bool:
    lowered = name.lower()
    return "pool" in lowered or is_swa_word(name)


def _swa_slot_name(path: str) -> bool:
    """An SWA pool or its full->SWA mapping (``_swa_kv_pool``, ``swa_config.pool``), named for
    the sliding window as a soft flag may be (``window_pool``: the window layers' pool)."""
    lowered = path.lower()
    return _soft_name(path) and ("pool" in lowered or "mapping" in lowered)


def _soft_name(path: str) -> bool:
    """A bool named for SWA or a window (``window_kv_enabled``, ``swa_config.enabled``)."""
    return is_swa_word(path) or "window" in path.lower()


def _all_backends(value: Any) -> bool:
    members = _members_of(value)
    return bool(members) and all(_kind(item) == _BACKEND for _, item in members)


def _search(root, value, steps, path, depth, found: _Found, nest: int = 0) -> None:
    """Pools (and None SWA slots), SWA-named bools and inner backends inside ``value``:
    elements of a list, tuple or dict, attributes of a helper or record object (``__dict__``
    or ``__slots__``), the cells of a closure, the function and arguments of a partial, the
    object a method is bound to; to ``_RECORD_DEPTH`` levels of records and functions, and
    ``_NEST_DEPTH`` levels of containers in containers (a tuple of dicts of lists)."""
    try:
        items = _items(value)
    except Exception:  # noqa: BLE001 - its attribute reads raise (a lazy proxy): not searched
        return
    # A None beside a pool or tensor of the same holder is something else than its SWA table
    # (a record of the SWA mapping and an unset buffer): only a holder of no state offers one.
    nones = [] if any(item is not None and (_kind(item) == _TENSOR or pool_of(item) is not None)
                      for _, item, _ in items) else found.nones
    holder = _kind(value)
    for suffix, item, getter in items:
        label, where = path + suffix, steps + (getter,)
        kind = _kind(item)
        if type(item) is bool:
            negated = _proven_negation(value, holder, suffix)
            if negated is not None:
                found.flags.append((root, where, label, negated))
            # (a plain list or tuple of bools is a table, one per layer or request; a
            # NamedTuple's fields are named)
            elif _soft_name(label) and not _is_config(value) and type(value) not in (
                    list, tuple):
                negated = label.rpartition(".")[2].startswith(_NEGATED)
                found.soft.append((root, where, label, negated))
        elif item is None:
            if _swa_slot_name(label):
                found.nested.append((root, where, label, True))
            else:
                nones.append((root, where, label))
        elif kind == _FUNCTION and depth < _RECORD_DEPTH and pool_of(item) is not None:
            _search(root, item, where, label, depth + 1, found, nest)  # the cell holding it:
            # ``callbacks['kv_ids'].pool``, a lambda's captured pool, is named as such
        elif type(item) is _AnyOf or pool_of(item) is not None:
            found.nested.append((root, where, label, _swa_slot_name(label)))
        elif kind == _BACKEND:
            found.inner.append((root, where, label))
        elif kind == _TENSOR:
            found.tensors.append((root, where, label, item))
        elif _held_runner_read(value, holder, suffix, item):
            found.nested.append((root, where + (_RUNNER_POOL,), f"{label}.{ACTIVE_POOL}", False))
        elif kind in (_METHOD, _BUILTIN):  # the object it is bound to: a handle of it
            _search(root, item, where, label, depth, found, nest)
        elif kind == _OTHER and nest < _NEST_DEPTH and _is_container(item):
            _search(root, item, where, label, depth, found, nest + 1)
        elif depth < _RECORD_DEPTH and kind in (_OTHER, _FUNCTION, _PARTIAL, _PROXY, _FRAME,
                                                _CONTEXT):
            _search(root, item, where, label, depth + 1, found, nest)


_RUNNER_POOL = operator.attrgetter(ACTIVE_POOL)


def _proven_negation(holder: Any, kind: int, suffix: str) -> Optional[bool]:
    """For a bool ``holder`` keeps as ``suffix`` (``.name``): whether the holder's own code
    proves it an SWA verdict (``provenance.helper_flags`` of a helper object's class,
    ``provenance.captured_flags`` of a function's defaults and cells), and then whether it is
    negated; None when its code does not say (its name may still make it a soft flag)."""
    from runtime_guard.provenance import captured_flags, helper_flags

    if not suffix.startswith("."):
        return None
    if kind == _FUNCTION:
        return captured_flags(holder).get(suffix[1:])
    if kind != _OTHER or _is_container(holder) or _is_config(holder) or isinstance(
            holder, (type, types.ModuleType)):
        return None
    return helper_flags(type(holder)).get(suffix[1:])


def _held_runner_read(holder: Any, kind: int, suffix: str, item: Any) -> bool:
    """``item`` is a model runner whose pool ``holder``'s code reads when it runs: an object
    whose class reads ``self.<name>.token_to_kv_pool`` (``_runner_pool_read``), a function
    whose code reads ``<cell or parameter>.token_to_kv_pool`` (a stored getter, ``lambda:
    model_runner.token_to_kv_pool``), ``functools.partial(getattr, runner, "token_to_kv_pool")``."""
    from runtime_guard.provenance import function_runner_reads

    if kind == _FUNCTION:
        return suffix[1:] in function_runner_reads(holder) and _is_runner(item)
    if kind == _PARTIAL:
        return (suffix == ".args[0]" and holder.func is getattr
                and holder.args[1:2] == (ACTIVE_POOL,) and _is_runner(item))
    return suffix.startswith(".") and _runner_pool_read(type(holder), suffix[1:], item)


def _runner_pool_read(holder: Optional[type], name: str, value: Any) -> bool:
    """``value`` is a model runner (it holds an allocator: never searched as a helper) kept as
    ``name`` by an object of class ``holder`` whose code reads its pool at launch time
    (``provenance.runner_pool_reads``): that pool is what the launch reads, not the swapped one."""
    from runtime_guard.provenance import runner_pool_reads

    if holder is None or name not in runner_pool_reads(holder):
        return False
    return _is_runner(value)


def _is_runner(value: Any) -> bool:
    """A model runner or worker: an object holding an allocator (and its own role's pool)."""
    try:
        inside = vars(value)
    except Exception:  # noqa: BLE001 - no __dict__, or its reads raise (a lazy proxy)
        return False
    return isinstance(inside, dict) and ALLOCATOR in inside


def _is_container(value: Any) -> bool:
    return isinstance(value, (*_SEQUENCES, collections.abc.Mapping, collections.abc.Set))


def _items(value: Any) -> list:
    """(path suffix, item, getter) for what ``value`` holds. A model runner or worker (it
    holds an allocator) owns its own role's pool, which a FROZEN_KV draft's launches never
    read, and an allocator's pool is what resolvers consult: neither is a helper. A dict
    entry keyed by its own pool's id is a memo of the live pool, not a cached one."""
    kind = _kind(value)
    if kind == _FUNCTION:  # its closure cells, defaults and own attributes
        names = value.__code__.co_freevars
        return [(f".{names[i]}", _cell(cell), _CellGetter(i))
                for i, cell in enumerate(value.__closure__ or ())] + _default_items(value) + [
            (f".{name}", item, operator.attrgetter(name)) for name, item in vars(value).items()
            if not name.startswith("__")]
    if kind == _METHOD:
        owner = value.__self__
        return [("", owner, _SELF)] if _kind(owner) == _OTHER else []
    if kind == _BUILTIN:  # ``reader.send``, ``reader.__next__``: its generator or context var
        owner = value.__self__
        return [(".__self__", owner, _SELF)] if _kind(owner) in (_FRAME, _CONTEXT) else []
    if kind == _FRAME:
        return _frame_items(value)
    if kind == _CONTEXT:  # its value in the context the launch runs in
        return [(".get()", value.get(None), _CONTEXT_VALUE)]
    if kind == _PARTIAL:  # what it was given when it was made: its function and arguments
        return ([(".func", value.func, _FUNC)]
                + [(f".args[{i}]", item, _Arg(i)) for i, item in enumerate(value.args)]
                + [(f".keywords[{k!r}]", item, _Keyword(k)) for k, item in value.keywords.items()])
    if isinstance(value, _SEQUENCES):
        pairs = (((f"[{k}]", operator.itemgetter(k)), v) for k, v in enumerate(value))
    elif isinstance(value, collections.abc.Mapping):  # a dict, a MappingProxyType, ...
        pairs = (((f"[{k.__qualname__ if isinstance(k, type) else repr(k)}]",
                   operator.itemgetter(k)), v) for k, v in list(value.items())
                 if isinstance(k, (str, int, type)) and not _memo_entry(k, v))  # (a class:
        # one entry per backend kind, ``_maps[type(self)]``)
        keys = _key_pools(value)  # pools as keys: what iterating the mapping reads
        if keys:
            pairs = itertools.chain([((".keys()", _key_pools), keys)], pairs)
        factory = getattr(value, "default_factory", None)  # a defaultdict's: what a key gets
        if factory is not None:
            pairs = itertools.chain([((".default_factory", _FACTORY), factory)], pairs)
    elif isinstance(value, collections.abc.Set):  # a set, frozenset, WeakSet
        pairs = (((f"{{{k}}}", _Nth(k)), v) for k, v in enumerate(list(value)))
    else:
        if hasattr(value, ALLOCATOR_POOL) or isinstance(value, (type, types.ModuleType)):
            return []
        inside = _instance_dict(value)
        if isinstance(inside, dict):
            if ALLOCATOR in inside:
                return []
            names = [*inside, *_class_members(type(value), inside)]
            members = _module_members(inside)
        else:
            names = [name for klass in type(value).__mro__ for name in _slot_names(klass)]
            members = []
            names += _class_members(type(value), names)
            if not names:  # an object only C code reads (an itertools iterator): what it holds
                return [(f"<held {i}>", item, _Referent(i))
                        for i, item in enumerate(gc.get_referents(value)[:_RECORD_ITEMS])]
        pairs = (((f".{k}", operator.attrgetter(k)), item) for k, item in itertools.chain(
            members, ((k, _own_read(value, k)) for k in names))
            if k.isidentifier() and not k.startswith("__") and k not in _MODULE_TABLES)
    found = []
    for (suffix, getter), item in pairs:
        if len(found) == _RECORD_ITEMS:
            break
        found.append((suffix, item, getter))
    return found


# Where ``torch.nn.Module`` keeps what ``self.x = ...`` or ``register_buffer`` gives it: read
# as the module's own attributes (``reader.window.kv_pool``, not ``reader._modules['window']``).
_MODULE_TABLES = ("_modules", "_buffers", "_parameters")


def _module_members(inside: dict) -> list:
    """(name, item) of what an ``nn.Module`` answers from its tables (submodules, buffers,
    parameters), which its ``__getattr__`` reads for ``module.<name>``."""
    return [(name, item) for table in _MODULE_TABLES if isinstance(inside.get(table), dict)
            for name, item in inside[table].items() if isinstance(name, str)]


def _own_read(value: Any, name: str) -> Any:
    """``value.<name>`` as its class answers it (a slot, ``__dict__``, a class attribute),
    never through a ``__getattr__`` forwarding to something else; None when it raises."""
    try:
        return object.__getattribute__(value, name)
    except Exception:  # noqa: BLE001 - absent, or a property that raises: nothing read
        return None


def _instance_dict(value: Any) -> Optional[dict]:
    """Its own ``__dict__``, never what a ``__getattr__`` hands out for the name (a proxy's)."""
    try:
        return object.__getattribute__(value, "__dict__")
    except AttributeError:
        return None


def _class_members(klass: type, own) -> list:
    """Data attributes a helper's own class (not a library's: the package's code) keeps and
    its instances read (``Builder.kv_pool = pool``; ``builder.kv_pool``): a pool there is every
    instance's. Names the instance binds itself shadow them."""
    found = []
    for base in klass.__mro__:
        if base.__module__.partition(".")[0] in _LIBRARY_ROOTS:
            continue
        for name, item in vars(base).items():
            if name.startswith("__") or name in own or name in found:
                continue
            if pool_of(item) is not None and not callable(getattr(item, "__get__", None)):
                found.append(name)
    return found


_LIBRARY_ROOTS = frozenset({"builtins", "torch", "sglang", "collections", "typing", "enum",
                           "abc", "types", "functools", "dataclasses"})


def _default_items(function) -> list:
    """(path suffix, item, getter) for a function's default arguments, positional and
    keyword-only, named by their parameters: what it was given where it was made."""
    code, defaults = function.__code__, function.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
    return [(f".{name}", item, _Default(i)) for i, (name, item) in enumerate(
        zip(names, defaults))] + [(f".{name}", item, _KwDefault(name)) for name, item in (
            function.__kwdefaults__ or {}).items()]


class _Default(NamedTuple):
    """A function's ``index``-th positional default."""

    index: int

    def __call__(self, function):
        return function.__defaults__[self.index]


class _KwDefault(NamedTuple):
    """A function's keyword-only default ``name``."""

    name: str

    def __call__(self, function):
        return function.__kwdefaults__[self.name]


class _AnyOf(tuple):
    """Pools of which the launch may read any one (a mapping's pool keys): stale only when none
    of them is the active pool or one of its sub-pools (a memo keyed by the live pool holds
    it beside the others)."""


def _key_pools(mapping: Any) -> Optional[_AnyOf]:
    """The keys of ``mapping`` that are pools (or bound to one), as ``_AnyOf``; None if none."""
    found = [key for key in itertools.islice(mapping, _RECORD_ITEMS)
             if _kind(key) == _POOL or (_kind(key) in _POOL_HANDLES and pool_of(key) is not None)]
    return _AnyOf(found) if found else None


_POOL_HANDLES = frozenset({_METHOD, _PARTIAL, _WEAKREF, _CACHED, _PROXY})  # may stand for a pool


def _frame_items(value: Any) -> list:
    """(path suffix, item, getter) for the locals of a suspended generator's (or coroutine's)
    frame that hold what it was started with: its parameters and closure cells that its code
    never rebinds (a local the code rebinds per ``send`` is what the caller gave it last)."""
    frame_attr, code_attr = _FRAMES[type(value)]
    frame = getattr(value, frame_attr)
    if frame is None:  # finished: it reads nothing any more
        return []
    local = frame.f_locals
    return [(f".{frame_attr}.f_locals[{name!r}]", local[name], _FrameLocal(frame_attr, name))
            for name in _fixed_locals(getattr(value, code_attr)) if name in local]


_fixed: dict = {}  # code object -> the names its frame keeps as they were at the start


def _fixed_locals(code: types.CodeType) -> tuple:
    names = _fixed.get(code)
    if names is None:
        import dis

        given = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount] + code.co_freevars
        rebound = {ins.argval for ins in dis.get_instructions(code) if ins.opname in (
            "STORE_FAST", "STORE_DEREF", "DELETE_FAST", "DELETE_DEREF")}
        names = _fixed[code] = tuple(name for name in dict.fromkeys(given)
                                     if name not in rebound)
    return names


class _FrameLocal(NamedTuple):
    """The local ``name`` of a generator's suspended frame (None once it finished)."""

    frame: str
    name: str

    def __call__(self, value):
        frame = getattr(value, self.frame, None)
        return None if frame is None else frame.f_locals.get(self.name)


_CONTEXT_VALUE = operator.methodcaller("get", None)


class _CellGetter(NamedTuple):
    """The contents of a closure's cell ``index`` (a getter like ``operator.attrgetter``)."""

    index: int

    def __call__(self, function):
        return _cell(function.__closure__[self.index])


class _Nth(NamedTuple):
    """The ``index``-th item of a set in iteration order (stable while the set is unchanged;
    a set that changed is read again, item by item, at the next discovery)."""

    index: int

    def __call__(self, items):
        return next(iter(list(items)[self.index:]), None)


_SELF = operator.attrgetter("__self__")
_FUNC = operator.attrgetter("func")
_FACTORY = operator.attrgetter("default_factory")


class _Referent(NamedTuple):
    """The ``index``-th object an opaque object holds (``gc.get_referents``: what its C code
    keeps, ``itertools.repeat``'s item, ``itertools.cycle``'s iterator and saved items). The
    index is the one discovery found: an iterator that moved on since (a cycle past its first
    round drops its iterator) may hold something else there, or nothing."""

    index: int

    def __call__(self, value):
        return gc.get_referents(value)[self.index]


class _Arg(NamedTuple):
    """The ``index``-th positional argument of a partial."""

    index: int

    def __call__(self, partial):
        return partial.args[self.index]


class _Keyword(NamedTuple):
    """The keyword argument ``name`` of a partial."""

    name: str

    def __call__(self, partial):
        return partial.keywords[self.name]


def _memo_entry(key: Any, item: Any) -> bool:
    """An entry keyed by the id of the pool it holds (itself, or a field of a record)."""
    if not isinstance(key, int):
        return False
    held = (item, *getattr(item, "__dict__", {}).values())
    return any(id(pool) == key for pool in map(pool_of, held) if pool is not None)


def _slot_names(klass: type) -> tuple:
    slots = vars(klass).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _is_config(value: Any) -> bool:
    return type(value).__module__.startswith(_CONFIG_MODULES)


def _class_slots(cls: Optional[type], state: dict, proven_flags: frozenset,
                 proven_state: frozenset = frozenset()) -> tuple:
    """(pools, flags, tensors): class attributes (below SGLang's base) the instance does not
    shadow, holding a pool, a pool method or a closure over one (a method or a property's
    getter of a class a factory made per pool too; a decorator's wrapper keeping one in its
    cells), an object or container holding one (a descriptor keeping what was assigned through
    it) or a tensor (``_judged_tensors`` says which to judge), or a bool the class's code
    decides as an SWA flag: state one constructor stored for every instance."""
    found, flags, inside, seen = [], [], _found(), set()
    where = f" (a class attribute of {cls.__name__ if cls else None})"
    for klass in (cls.__mro__ if cls is not None else ()):
        if klass.__name__ == _BACKEND_BASE or klass is object:
            break
        for name, value in vars(klass).items():
            if name in seen or name in state or name.startswith("__"):
                continue
            seen.add(name)  # the first class of the MRO defining it is the one read
            if isinstance(value, (property, types.FunctionType)):
                getter = value.fget if isinstance(value, property) else value
                steps = (_FGET,) if isinstance(value, property) else ()
                if getter is not None and pool_of(getter) is not None:
                    found.append((name, steps, name + where, False))
                elif getattr(getter, "__closure__", None):  # a decorator's wrapper: what its
                    _search(name, getter, steps, name, 1, inside)  # cells hold, every call
            elif type(value) is bool:
                if name in proven_flags:
                    flags.append((name, name.startswith(_NEGATED)))
            elif value is None and _swa_slot_name(name) or (
                    value is not None and pool_of(value) is not None):
                found.append((name, (), name + where, _swa_slot_name(name)))
            elif _kind(value) in (_OTHER, _CONTEXT, _FRAME):  # an object, container, ContextVar
                _search(name, value, (), name, 1, inside)
    found += [(name, steps, path + where, swa) for name, steps, path, swa in inside.nested]
    # (a slot left None when the class was first seen, named for SWA: what it holds later is
    # judged then, a decorator's cell filled from another pool by a later construction)
    found += [(name, steps, path + where, _swa_slot_name(path) or name in proven_state)
              for name, steps, path in inside.nones if _soft_name(path) or name in proven_state]
    tensors = [(name, steps, path + where, tensor) for name, steps, path, tensor
               in inside.tensors]
    return tuple(found), tuple(flags), tensors


_FGET = operator.attrgetter("fget")


def _own_slots(backend: Any) -> dict:
    """The backend's own ``__slots__`` (below SGLang's base), which live outside ``__dict__``:
    name -> value (None where unset)."""
    found = {}
    for klass in type(backend).__mro__:
        if klass.__name__ == _BACKEND_BASE or klass is object:
            break
        for name in _slot_names(klass):
            if name not in ("__dict__", "__weakref__") and name not in found:
                found[name] = getattr(backend, name, None)
    return found


class Active(NamedTuple):
    """What the checks ask of the pool a launch reads, computed once per pool."""

    pool: Any
    ids: frozenset  # of it and the pools it holds (an SWAKVPool's full and SWA sub-pools)
    is_swa: bool
    expects_swa: bool  # an SWA pool with SWA layers: an SWA slot left None is stale
    mapping: Any  # its layers_mapping: layer id -> (index, is an SWA layer)


def active_facts(active: Any) -> Active:
    cached = _members.get(id(active))
    if cached is not None and cached.pool is active:
        return cached
    if len(_members) > 64:  # pools live for the server's lifetime; tests build many
        _members.clear()
    is_swa = is_swa_pool(active)
    facts = _members[id(active)] = Active(
        active, frozenset(map(id, _pools_in(active))), is_swa,
        is_swa and getattr(active, "swa_layer_nums", 1) != 0,
        getattr(active, "layers_mapping", None) or {})
    return facts


def members(active: Any) -> frozenset:
    """Ids of ``active`` and the pools it holds (an SWAKVPool's full and SWA sub-pools)."""
    return active_facts(active).ids


def _pools_in(active: Any) -> list:
    """``active`` and the pools it holds, transitively."""
    found, todo = [active], [active]
    while todo:
        for value in vars(todo.pop()).values():
            if _kind(value) == _POOL and all(value is not pool for pool in found):
                found.append(value)
                todo.append(value)
    return found


class PoolTensors(NamedTuple):
    """The tensors a pool and its sub-pools hold (attributes and their list elements)."""

    ids: frozenset
    storages: frozenset  # data pointers of their storages: a view of one shares it
    shapes: frozenset  # (shape, dtype) of each
    bare_shapes: frozenset  # shape of each, whatever the dtype (a converted copy keeps it)
    sizes: frozenset  # (numel, dtype) of each of 2-D or more (a view of a K/V buffer)


def pool_tensors(active: Any) -> PoolTensors:
    cached = _tensors.get(id(active))
    if cached is not None and cached[0] is active:
        return cached[1]
    found = [item for pool in _pools_in(active) for value in vars(pool).values()
             for item in (value if isinstance(value, (list, tuple)) else (value,))
             if _kind(item) == _TENSOR]
    held = PoolTensors(frozenset(map(id, found)),
                       frozenset(t.untyped_storage().data_ptr() for t in found),
                       frozenset((tuple(t.shape), t.dtype) for t in found),
                       frozenset(tuple(t.shape) for t in found),
                       frozenset((t.numel(), t.dtype) for t in found if t.dim() >= 2))
    if len(_tensors) > 64:
        _tensors.clear()
    _tensors[id(active)] = (active, held)
    return held


def _foreign_tensor(tensor: Any, active: Any, proven: bool, held=None) -> bool:
    """A tensor like one of the active pool's (its full->SWA mapping, a K buffer) that is
    neither one of them nor a view of one: another pool's, or a copy that the pool's in-place
    updates no longer reach. Like: of its shape and dtype; of its element count and dtype (2-D
    or more: a paged view of a K buffer); of its shape in any dtype where the class's code
    derives the tensor from a pool's SWA state (``proven``: ``mapping.to(torch.int32)``), and
    there a view of such a tensor too (``mapping[:-1]``: its base's shape and dtype). Anything
    else is derived (a layer mask, a workspace of another size) and is not judged."""
    held = held or pool_tensors(active)
    if id(tensor) in held.ids:
        return False
    key = (id(tensor), id(active), proven)
    verdict = _verdicts.get(key)
    if verdict is None or verdict[0] is not tensor:
        shape = tuple(tensor.shape)
        like = ((shape, tensor.dtype) in held.shapes or (proven and shape in held.bare_shapes)
                or (tensor.dim() >= 2 and (tensor.numel(), tensor.dtype) in held.sizes))
        base = tensor._base if proven and not like else None  # (mapping[:-1]: a view of one)
        like = like or base is not None and (tuple(base.shape), base.dtype) in held.shapes
        stale = like and tensor.untyped_storage().data_ptr() not in held.storages
        if len(_verdicts) > 256:
            _verdicts.clear()
        verdict = _verdicts[key] = (tensor, stale)
    return verdict[1]


def find_generic_problem(backend: Any, layer_id: Optional[int] = None,
                         forward_batch: Any = None) -> Optional[Problem]:
    """The first pool attribute or SWA flag of ``backend`` (or of an inner backend) that does
    not agree with the pool its launch reads; None when all agree or no pool is known."""
    active = active_pool(backend, forward_batch)
    if active is None:
        return None
    return _problem(backend, backend, "", active, layer_id, 0)


def _problem(outer, backend, prefix, active, layer_id, depth) -> Optional[Problem]:
    state = backend.__dict__
    found = _layouts.get(id(backend))  # (``_cached_layout`` inline: every launch runs it)
    layout = found[2] if found is not None and found[0] is backend and found[1] == len(
        state) else layout_of(backend, active)
    for name in layout.direct:  # inline: the one loop every generic launch runs
        value = state.get(name)
        if value is not active and (value is not None or name in layout.swa_named):
            problem = _slot_problem(outer, value, name in layout.swa_named, prefix + name,
                                    active, layer_id)
            if problem is not None:
                return problem
    if layout.rest:  # the rarer forms, in one call: most classes have none of them
        problem = _rest_problem(outer, backend, state, layout, prefix, active, layer_id)
        if problem is not None:
            return problem
    if layout.inner and depth < _MAX_INNER_DEPTH:
        return _inner_problem(outer, backend, state, layout.inner, prefix, active, layer_id,
                              depth)
    return None


def _rest_problem(outer, backend, state, layout, prefix, active, layer_id) -> Optional[Problem]:
    """Class attributes, pools in helpers and containers, pool tensors, flags."""
    cls = type(backend)
    for name, swa in layout.slots:
        problem = _slot_problem(outer, getattr(backend, name, None), swa, prefix + name, active,
                                layer_id)
        if problem is not None:
            return problem
    for name, steps, path, swa in layout.class_nested:
        value = _follow(cls, (operator.attrgetter(name), *steps))
        # (a slot None when the class was first seen, filled by a later construction: a tensor)
        problem = _held_tensor_problem(outer, value, swa, prefix + path, active, layer_id) if (
            _kind(value) == _TENSOR) else _slot_problem(outer, value, swa, prefix + path,
                                                        active, layer_id)
        if problem is not None:
            return problem
    for name, steps, path, proven in layout.class_tensors:
        value = _follow(cls, (operator.attrgetter(name), *steps))
        problem = _held_tensor_problem(outer, value, proven, prefix + path, active, layer_id)
        if problem is not None:
            return problem
    for name, steps, path, swa in layout.nested:
        problem = _slot_problem(outer, _follow(state.get(name), steps), swa, prefix + path,
                                active, layer_id)
        if problem is not None:
            return problem
    for steps, path, swa in layout.registries:
        problem = _slot_problem(outer, _follow(backend, steps), swa, prefix + path, active,
                                layer_id)
        if problem is not None:
            return problem
    if layout.outside:
        problem = _outside_problem(outer, backend, layout.outside, active, layer_id)
        if problem is not None:
            return problem
    problem = _tensor_problem(outer, state, layout.tensors, prefix, active, layer_id) if (
        layout.tensors) else None
    if problem is None and (layout.choices or layout.verdicts):
        problem = _verdict_problem(outer, state, layout, prefix, active, layer_id)
    if problem is not None:
        return problem
    if layout.flags or layout.soft or layout.class_flags or layout.nested_flags:
        return _flag_problem(outer, backend, state, layout, prefix, active, layer_id)
    return None


def _outside_problem(outer, backend, entries, active, layer_id) -> Optional[Problem]:
    """A module global the class's code reads holding another pool, or set from an SWA pool
    test on another pool than the one the launch reads."""
    for steps, path, swa, negated in entries:
        value = _follow(backend, steps)
        if negated is None:
            problem = _slot_problem(outer, value, swa, path, active, layer_id)
            if problem is not None:
                return problem
        elif type(negated) is tuple:  # (value if SWA, value if not): a verdict kept as a value
            if _picks_other(value, *negated, active):
                return Problem("flag", _pick_message(outer, layer_id, active, path, value))
        elif type(value) is bool and _disagrees(value, negated, active):
            return Problem("flag", _flag_message(outer, layer_id, active, path, value))
    return None


def _picks_other(value: Any, if_swa: Any, if_not: Any, active: Any) -> bool:
    """A value picked by an SWA pool test that says another thing than the active pool is."""
    facts = active_facts(active)
    return ((_same(value, if_not) and facts.expects_swa)
            or (_same(value, if_swa) and not facts.is_swa))


def _same(value: Any, picked: Any) -> bool:
    return value is picked or (type(value) is type(picked) and isinstance(
        picked, (str, int, float, enum.Enum)) and value == picked)


def _disagrees(flag: bool, negated: bool, active: Any) -> bool:
    """A flag decided from a pool's type that says another thing than the active pool is."""
    facts = active_facts(active)
    return (flag != negated) != facts.is_swa and (flag != negated or facts.expects_swa)


def _tensor_problem(outer, state, tensors, prefix, active, layer_id) -> Optional[Problem]:
    """A judged tensor that is not the active pool's; one the code derives from a pool's SWA
    state (``proven``) that is None while the launch reads an SWA pool (found as a tensor on
    another instance of the class)."""
    held = pool_tensors(active)
    for name, steps, path, proven in tensors:
        value = _follow(state.get(name), steps) if steps else state.get(name)
        if value is None and proven and _expects_swa_pool(active):
            return Problem("pool", _none_message(outer, layer_id, active, prefix + path))
        if id(value) not in held.ids and _kind(value) == _TENSOR and _foreign_tensor(
                value, active, proven, held):
            return Problem("pool", _tensor_message(outer, layer_id, active, prefix + path, value))
    return None


def _held_tensor_problem(outer, value, proven, path, active, layer_id) -> Optional[Problem]:
    """A tensor a class attribute holds that is like the active pool's but not one of them."""
    if _kind(value) == _TENSOR and _foreign_tensor(value, active, proven):
        return Problem("pool", _tensor_message(outer, layer_id, active, path, value))
    return None


def _verdict_problem(outer, state, layout, prefix, active, layer_id) -> Optional[Problem]:
    """A method chosen, or a string, enum or object verdict kept, by a pool type test on
    another pool than the one the launch reads."""
    facts = active_facts(active)
    for name, if_swa, if_not in layout.choices:
        method = getattr(state.get(name), "__func__", None)
        chosen = getattr(method, "__name__", None)
        if (chosen == if_not and facts.expects_swa) or (chosen == if_swa and not facts.is_swa):
            return Problem("flag", _choice_message(outer, layer_id, active, prefix + name, chosen))
    for name, if_swa, if_not in layout.verdicts:
        value = state.get(name)
        if value is not None and _picks_other(value, if_swa, if_not, active):
            shown = (repr(value) if isinstance(value, str) else str(value) if isinstance(
                value, (int, float, enum.Enum)) else getattr(value, "__name__", None) or (
                    f"a {type(value).__name__}"))
            return Problem("flag", _flag_message(outer, layer_id, active, prefix + name, shown))
    return None


def _slot_problem(outer, value, swa_named, path, active, layer_id) -> Optional[Problem]:
    if value is active:
        return None
    if value is None:
        if swa_named and _expects_swa_pool(active):
            return Problem("pool", _none_message(outer, layer_id, active, path))
        return None
    if type(value) is _AnyOf:  # keys: one of them is the active pool, or the first is stale
        ids = members(active)
        if any(id(key) in ids or id(pool_of(key)) in ids for key in value):
            return None
        value = value[0]
    if type(value) is types.MethodType and value.__self__ is active:  # the common live case
        return None
    if swa_named and _kind(value) == _TENSOR:  # an SWA slot found None on another instance
        if _foreign_tensor(value, active, True):
            return Problem("pool", _tensor_message(outer, layer_id, active, path, value))
        return None
    pool = pool_of(value)
    if pool is not None and id(pool) not in members(active):
        return Problem("pool", _pool_message(outer, layer_id, active, path, value, pool))
    return None


def _follow(value, steps):
    for step in steps:
        if value is None:
            return None
        try:
            value = step(value)
        except Exception:  # noqa: BLE001 - the holder changed since discovery: nothing to read
            return None
    return value


def _flag_problem(outer, backend, state, layout, prefix, active, layer_id) -> Optional[Problem]:
    """A proven flag must say what the active pool is; any other SWA- or window-named bool
    only must not say "not SWA" while the launch reads an SWA layer: True beside a full pool
    may be the model's geometry (a sliding window exists), never a wrong translation."""
    if layout.flags or layout.class_flags:
        facts = active_facts(active)
        for name, negated in layout.flags + layout.class_flags:
            kept = state[name] if name in state else getattr(type(backend), name, None)
            flag = kept if type(kept) is bool else _truth(kept)
            if flag is not None and (flag != negated) != facts.is_swa and (
                    flag != negated or facts.expects_swa):
                return Problem("flag", _flag_message(outer, layer_id, active, prefix + name,
                                                     _shown_flag(kept)))
    for name, steps, path, negated in layout.nested_flags:
        flag = _follow(state.get(name), steps)
        if type(flag) is bool and _disagrees(flag, negated, active):
            return Problem("flag", _flag_message(outer, layer_id, active, prefix + path, flag))
    for name, steps, path, negated in layout.soft:
        flag = _follow(state.get(name), steps) if steps else state.get(name)
        if flag is negated and _reads_swa_layer(active, layer_id):  # bools are singletons
            return Problem("flag", _flag_message(outer, layer_id, active, prefix + path, flag))
    return None


_tensor_truths: dict = {}  # id(tensor) -> (tensor, its version, its truth)


def _truth(value: Any) -> Optional[bool]:
    """What a flag kept in ``value`` says of SWA: a bool itself; a number's or a one-element
    tensor's truth; for a pool class, whether it is an SWA pool's. None for anything else.
    A tensor is read again only after an in-place write (its version changes): a device
    tensor's read waits for the device."""
    if type(value) is bool:
        return value
    if isinstance(value, type):
        return is_base_swa_kv_pool_class(value) if _POOL_BASE in {
            klass.__name__ for klass in value.__mro__} else None
    if isinstance(value, (int, float)) or (type(value).__module__ == "numpy" and getattr(
            value, "ndim", None) == 0):
        return bool(value)
    if _kind(value) == _TENSOR and value.numel() == 1:
        cached = _tensor_truths.get(id(value))
        if cached is None or cached[0] is not value or cached[1] != value._version:
            if len(_tensor_truths) > 256:
                _tensor_truths.clear()
            cached = _tensor_truths[id(value)] = (value, value._version, bool(value.item()))
        return cached[2]
    return None


def _shown_flag(kept: Any) -> str:
    """A kept flag as a message shows it: a bool as it is, a pool class by name."""
    return kept.__name__ if isinstance(kept, type) else repr(kept)


def _reads_swa_layer(active: Any, layer_id: Optional[int]) -> bool:
    facts = active_facts(active)
    if not facts.expects_swa:
        return False
    layer = facts.mapping.get(layer_id) if layer_id is not None else None
    return layer is None or bool(layer[1])


def _inner_problem(outer, backend, state, inner, prefix, active, layer_id, depth):
    for name, steps, path in inner:
        value = _follow(state.get(name), steps)
        for child in _children(value):
            if _kind(child) != _BACKEND or child is backend:
                continue
            inside = child.__dict__
            layout = _cached_layout(child, inside)
            if layout is not None and layout.trivial and inside.get(ACTIVE_POOL, active) is active:
                continue  # the common inner backend (a live one): no call needed
            # No path text on the happy path: a child with a problem is checked again with it.
            if _problem(outer, child, "", active, layer_id, depth + 1) is not None:
                delegated = _delegated_problem(outer, backend, name, steps, child, prefix,
                                               active, layer_id)
                if delegated is not None:
                    return delegated
                suffix = next((key for key, item in _members_of(value) or () if item is child), "")
                return _problem(outer, child, f"{prefix}{path}{suffix}.", active, layer_id,
                                depth + 1)
    return None


def _delegated_problem(outer, holder, name, steps, child, prefix, active, layer_id):
    """Where ``holder``'s ``__getattr__`` forwards the attributes it lacks to the inner backend
    ``holder.<name>``, the stale state it reads as its own: the child's pool slots and flags
    the holder does not have itself, named as the holder reads them (``backend._swa_kv_pool``,
    delegated to ``backend._inner._swa_kv_pool``). None when it delegates nothing stale."""
    getter = getattr(type(holder), "__getattr__", None)
    if steps or not isinstance(getter, types.FunctionType) or (
            name not in getter.__code__.co_names):
        return None
    layout, state = layout_of(child, active), child.__dict__
    for attr in (*layout.direct, *(flag for flag, _ in layout.flags)):
        if attr in holder.__dict__ or hasattr(type(holder), attr) or attr not in state:
            continue
        problem = (_slot_problem(outer, state[attr], attr in layout.swa_named, prefix + attr,
                                 active, layer_id) if attr in layout.direct
                   else _flag_problem(outer, child, state, layout._replace(
                       flags=tuple(f for f in layout.flags if f[0] == attr), soft=(),
                       class_flags=(), nested_flags=()), prefix, active, layer_id))
        if problem is not None:
            own = state.get(ACTIVE_POOL, active)
            note = (f" ({type(holder).__name__}.__getattr__ delegates it to "
                    f"{_shown(f'{prefix}{name}.{attr}')}"
                    + (f", an inner backend still on {describe_pool(own)}: the pool swap does "
                       f"not reach it)" if own is not active else ")"))
            return problem._replace(message=problem.message + note)
    return None


def _children(value: Any):
    """What a container holds (values of a mapping), or the value itself: no labels, per
    launch (a backend first: the ABC checks below are the slow ones)."""
    if _kind(value) == _BACKEND:
        return (value,)
    if isinstance(value, _SEQUENCES):
        return value
    if isinstance(value, dict):
        return value.values()
    if isinstance(value, collections.abc.Mapping):
        return list(value.values())
    if isinstance(value, collections.abc.Set):
        return list(value)
    return (value,)


def _expects_swa_pool(active: Any) -> bool:
    """The launch reads an SWA pool with SWA layers: an SWA pool attribute left None (resolved
    from a non-SWA pool, e.g. a FROZEN_KV MTP draft's own) sends SWA layers full-pool ids."""
    return active_facts(active).expects_swa


def _shown(path: str) -> str:
    return path if path.startswith(_GLOBAL) else f"backend.{path}"


_WHY = ("poolguard's table does not describe this class, so whether its launches read the "
        "attribute is not known: treated as live")


def _lead(backend, layer_id, active) -> str:
    """What every generic message starts with: the check, its verdict, the backend."""
    return f"poolguard (generic check, live): {describe_backend(backend, layer_id, active)}: "


def _pool_message(backend, layer_id, active, path, value, pool) -> str:
    what = describe_pool(pool) if value is pool else (
        f"{'a weak proxy to' if _kind(value) == _PROXY else 'a method of'} {describe_pool(pool)}")
    return (
        f"{_lead(backend, layer_id, active)}{_shown(path)} holds {what}, not the active pool "
        f"{describe_pool(active)} or one of its sub-pools: it was cached from another pool (e.g. "
        f"before a FROZEN_KV MTP pool swap). Read it from self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def _none_message(backend, layer_id, active, path) -> str:
    return (
        f"{_lead(backend, layer_id, active)}{_shown(path)} is None but the launch reads the SWA "
        f"pool {describe_pool(active)}: it was resolved from a non-SWA pool (e.g. a FROZEN_KV MTP "
        f"draft's own pool). Resolve it from self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def _tensor_message(backend, layer_id, active, path, tensor) -> str:
    return (
        f"{_lead(backend, layer_id, active)}{_shown(path)} is a {tuple(tensor.shape)} "
        f"{tensor.dtype} tensor like the active pool {describe_pool(active)}'s own but not one of "
        f"them nor a view of one: it was read off another pool (e.g. before a FROZEN_KV MTP pool "
        f"swap) or copied (a copy misses the pool's in-place updates). Read it from "
        f"self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def _flag_message(backend, layer_id, active, path, flag) -> str:
    return (
        f"{_lead(backend, layer_id, active)}{path}={flag} but the pool the launch reads is "
        f"{describe_pool(active)}: the flag was computed from another pool. Derive it from "
        f"self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def _pick_message(backend, layer_id, active, path, value) -> str:
    shown = getattr(value, "__name__", None) if callable(value) else repr(value)
    return (
        f"{_lead(backend, layer_id, active)}{path} is {shown}, picked by a pool type test on "
        f"another pool than the one the launch reads, {describe_pool(active)}. Pick it from "
        f"self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def _choice_message(backend, layer_id, active, path, chosen) -> str:
    return (
        f"{_lead(backend, layer_id, active)}{_shown(path)} is self.{chosen}, chosen by a pool "
        f"type test on another pool than the one the launch reads, {describe_pool(active)}. "
        f"Choose it from self.{ACTIVE_POOL} per launch ({_WHY})."
    )


def guard_dispatch(original, *args, **kwargs):
    """AROUND ``AttentionBackend.forward``: the generic check, then the dispatch."""
    backend = args[0]
    if type(backend) not in seen.SEEN:  # a class loaded after the plugin: hooked at first sight
        seen.first_sight(type(backend))
    if is_generic(type(backend)):
        layer = args[4] if len(args) > 4 else kwargs.get("layer")
        batch = args[5] if len(args) > 5 else kwargs.get("forward_batch")
        problem = find_generic_problem(backend, getattr(layer, "layer_id", None), batch)
        if problem is not None:
            from runtime_guard import hooks

            hooks.report(problem, ("generic", type(backend).__name__, problem.kind))
    return original(*args, **kwargs)


def register(registry) -> Optional[str]:
    """Register ``guard_dispatch`` on ``AttentionBackend.forward`` once; return why not, or None."""
    import importlib

    try:
        base = getattr(importlib.import_module(BASE_MODULE), _BACKEND_BASE)
    except Exception as err:  # an SGLang without this module: nothing generic to guard
        return f"generic check off: {type(err).__name__}: {err}"[:200]
    target = f"{BASE_MODULE}.{_BACKEND_BASE}.{DISPATCH}"
    # HookRegistry has no public query of pending hooks: read its table, as the plugin does.
    pending = getattr(registry.HookRegistry, "_hooks", {}).get(target, ())
    if not (any(hook is guard_dispatch for _, hook, _ in pending) or wraps_dispatch(
            vars(base).get(DISPATCH))):
        registry.HookRegistry.register(target, guard_dispatch, registry.HookType.AROUND)
    wanted = [(cls, DISPATCH, guard_dispatch) for cls in dispatch_overrides(base)]
    wanted += [(definer, name, guard_graph_metadata) for cls in loaded_subclasses(base)
               for definer, name in graph_metadata_definers(cls)]
    for cls, name, hook in dict.fromkeys(wanted):
        target = f"{cls.__module__}.{cls.__qualname__}.{name}"
        pending = getattr(registry.HookRegistry, "_hooks", {}).get(target, ())
        if "<" not in target and not any(known is hook for _, known, _ in pending):
            registry.HookRegistry.register(target, hook, registry.HookType.AROUND)
    return None


# The metadata paths a CUDA graph's capture and replay run in Python: at replay no forward
# dispatch runs, and the captured kernels read what these build.
GRAPH_METADATA = ("init_forward_metadata_out_graph", "init_forward_metadata_replay_cuda_graph",
                  "init_forward_metadata_capture_cuda_graph")


def graph_metadata_definers(cls: type) -> list:
    """(defining class, method) for the CUDA-graph metadata methods of ``cls`` the generic
    check follows, not hooked yet: defined below SGLang's base by no table class, for a class
    whose launches it checks (SGLang's own classes overriding ``forward``, the DeepSeek-V4
    family, are left out as at their dispatch)."""
    if not is_generic(cls) or (cls.__module__.startswith(PACKAGES) and (
            next((k for k in cls.__mro__ if DISPATCH in vars(k)), object).__module__
            != BASE_MODULE)):
        return []
    found = []
    for name in GRAPH_METADATA:
        definer = next((k for k in cls.__mro__ if name in vars(k)), None)
        if definer is None or definer is object or definer.__module__ == BASE_MODULE:
            continue
        if not wraps(vars(definer)[name], guard_graph_metadata):
            found.append((definer, name))
    return found


def guard_graph_metadata(original, *args, **kwargs):
    """AROUND a CUDA-graph metadata method (capture, replay; eager through the base's
    ``init_forward_metadata``) of a class the table does not name: after it built the metadata
    and before any kernel reads it (a graph replay runs no forward dispatch), the backend's
    pool state must agree with the pool its launches read. After, not before: a class that
    re-derives its state there is right once it has."""
    result = original(*args, **kwargs)
    backend = args[0]
    if _kind(backend) == _BACKEND and is_generic(type(backend)):
        batch = args[1] if len(args) > 1 else kwargs.get("forward_batch")
        problem = find_generic_problem(backend, None, batch if hasattr(
            batch, "forward_mode") else None)
        if problem is not None:
            from runtime_guard import hooks

            hooks.report(problem, ("generic-graph", type(backend).__name__, problem.kind))
    return result


# ``super().forward(``, ``AttentionBackend.forward(self, ``: an override reaching the hooked base
_CALLS_BASE = re.compile(r"\bsuper\([^)]*\)\s*\.\s*forward\s*\(|\bAttentionBackend\.forward\s*\(")


def dispatch_overrides(base: type) -> list:
    """The classes defining the ``forward`` that loaded subclasses of ``base``
    (``AttentionBackend``) the generic check covers run instead of the base dispatch
    (``dispatch_definer``), not hooked yet: the hook points of classes whose launches never pass
    the base ``forward``. Classes loaded later are hooked when first run
    (``runtime_guard.late``)."""
    found = []
    for sub in loaded_subclasses(base):
        definer = dispatch_definer(sub)
        if definer is not None and definer not in found:
            found.append(definer)
    return found


def dispatch_definer(cls: type, described_too: bool = False) -> Optional[type]:
    """The class defining the ``forward`` ``cls`` runs instead of the base dispatch (its own or a
    mixin's, never calling the base: its own mode dispatch, as SGLang's hybrid wrappers have),
    unless it is hooked already; None when ``cls`` runs the base dispatch. Only for a class the
    generic check covers, outside SGLang's packages (``described_too``: for table classes too,
    whose own ``forward`` the table hooks then check): SGLang's own overriding classes (the
    DeepSeek-V4 family) keep pool families this check was not validated on, and are left as
    ``guard-status`` says ("only the inner backends it dispatches to")."""
    definer = next((k for k in cls.__mro__ if DISPATCH in vars(k)), None)
    if definer is None or definer.__name__ == _BACKEND_BASE or definer.__module__ == BASE_MODULE:
        return None
    if not described_too and not (is_generic(cls) and not cls.__module__.startswith(PACKAGES)
                                  and not definer.__module__.startswith(PACKAGES)):
        return None
    own = vars(definer)[DISPATCH]
    return None if wraps_dispatch(own) or _calls_base(own) else definer


def _calls_base(method) -> bool:
    """Whether ``method``'s source calls the base dispatch (an override calling it is checked
    there); a method without source is hooked (a second check costs time, never a miss)."""
    try:
        source = inspect.getsource(inspect.unwrap(method))
    except Exception:  # noqa: BLE001 - no source: compiled or generated
        return False
    return _CALLS_BASE.search(source) is not None


def wraps_dispatch(method) -> bool:
    """Whether ``method`` is already a wrapper chain around ``guard_dispatch``."""
    return wraps(method, guard_dispatch)


def wraps(method, hook) -> bool:
    """Whether ``method`` is ``hook`` or a wrapper chain that closes over it (another plugin's
    wrappers included)."""
    while method is not None:
        cells = getattr(method, "__closure__", None) or ()
        if method is hook or any(_cell(c) is hook for c in cells):
            return True
        method = getattr(method, "__wrapped__", None)
    return False


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def installed_backend_classes(packages=PACKAGES) -> list:
    """Every ``AttentionBackend`` subclass defined in ``packages`` whose module imports here
    (importing each module, as the plugin's table lookups do; failures are skipped)."""
    import importlib
    import pkgutil

    base = getattr(importlib.import_module(BASE_MODULE), _BACKEND_BASE)
    for package in packages:
        try:
            root = importlib.import_module(package)
        except Exception:  # absent on this release
            continue
        for module in pkgutil.walk_packages(root.__path__, package + "."):
            try:
                importlib.import_module(module.name)
            except BaseException:  # noqa: B036 - needs a GPU runtime, torch_npu, aiter...
                continue
    return sorted((cls for cls in loaded_subclasses(base) if cls.__module__.startswith(packages)),
                  key=lambda cls: f"{cls.__module__}.{cls.__name__}")


def generic_classes(classes) -> list:
    """(class, reached) for the classes among ``classes`` the generic check covers; ``reached``
    is False where the class overrides ``forward`` itself (its inner backends are checked when
    its ``forward`` dispatches to theirs)."""
    found = []
    for cls in classes:
        if _BACKEND_BASE in {k.__name__ for k in cls.__mro__[1:]} and is_generic(cls):
            owner = next((k for k in cls.__mro__ if DISPATCH in vars(k)), None)
            found.append((cls, owner is not None and owner.__name__ == _BACKEND_BASE))
    return found


def status_rows() -> list:
    """(class, guarded, fixed, why) for ``poolguard guard-status``: the classes only the
    generic check covers on this host."""
    rows = []
    for cls, reached in generic_classes(installed_backend_classes()):
        if reached:
            rows.append((cls.__name__, "generic (forward dispatch)", "no",
                         "not in the table: pool attributes and SWA flags checked, live/latent "
                         "not known"))
        else:
            rows.append((cls.__name__, "-", "no", "not in the table and overrides forward: "
                         "only the inner backends it dispatches to are checked"))
    return rows
