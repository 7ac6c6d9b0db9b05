"""Which boolean attributes a backend class decides from an SWA pool test, read from its code.

A flag's value alone cannot say where it came from: ``window_kv_enabled = isinstance(pool,
SWAKVPool)`` and ``has_swa = sliding_window_size > -1`` are both True on a hybrid model, and
only the first goes stale when a FROZEN_KV MTP draft's pool is swapped. The lint's own analysis
(``lint_rules.rules._facts``, the taint model behind KVP002/KVP003) already tells the two
apart by how each is computed, whatever it is called, so the generic guard asks it: once per
class, over the source of each class in its MRO (the module's, or the class's own where the
module's analysis does not find it, e.g. a class defined in a function). ``None`` means no
source could be read (a compiled or generated class): the caller falls back to names.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from typing import NamedTuple, Optional

_by_class: dict = {}  # class -> frozenset of proven flag names, or None
_by_module: dict = {}  # (module name, base names, class name) -> FileFacts, or None


class Proven(NamedTuple):
    """What a class's code says of its attributes (kept across forwards)."""

    flags: frozenset  # SWA decisions: a pool or allocator type test, a runner's SWA flag
    swa_state: frozenset  # SWA state read off a pool (a sub-pool, its mapping, a table of it)


def proven(cls: type, stop: type) -> Optional[Proven]:
    """What the lint's analysis says of ``cls`` and its bases below ``stop`` (``FileFacts.flag``
    and the taint of each store); None when no class's source could be read."""
    if cls not in _by_class:
        _by_class[cls] = _read(cls, stop)
    return _by_class[cls]


def _read(cls: type, stop: type) -> Optional[Proven]:
    # The class is a backend whatever its bases are called: every class of its MRO counts as
    # a backend base for the lint (whose name-based test serves files, not live classes).
    bases = tuple(sorted({klass.__name__ for klass in cls.__mro__ if klass is not object}))
    from lint_rules.rules._flow import Taint

    flags, state, read_any = set(), set(), False
    for klass in cls.__mro__:
        if klass is stop or klass is object:
            break
        facts, node = _facts_of(klass, bases)
        if facts is None:
            continue
        read_any = True
        stores = [store for relative in facts.relatives(node) for store in relative.stores]
        attrs = {store.attr for store in stores}
        attrs |= {name for relative in facts.relatives(node) for name in relative.properties}
        flags.update(attr for attr in attrs if _says_swa(facts.flag(node, attr)))
        state.update(store.attr for store in stores if store.sink and store.scope == "self"
                     and store.bits & Taint.SWA)
    return Proven(frozenset(flags), frozenset(state - flags)) if read_any else None


def _says_swa(flag) -> bool:
    """A flag the guard may hold to the active pool: one whose value says "the pool is SWA"
    (not a test of another pool class, nor a choice made under another flag)."""
    return flag is not None and flag.says_swa


def _facts_of(klass: type, bases: tuple):
    """(FileFacts, ClassFacts) of ``klass``, or (None, None)."""
    module = _module_facts(klass.__module__, bases, klass.__name__)
    node = module.by_name.get(klass.__name__) if module is not None else None
    if node is not None:
        return module, node
    own = _parse(lambda: textwrap.dedent(inspect.getsource(klass)), bases)
    node = own.by_name.get(klass.__name__) if own is not None else None
    return (own, node) if node is not None else (None, None)


def _module_facts(name: str, bases: tuple, cls_name: str):
    # Only the class (and the same-file classes it inherits from): a 2,000-line module of
    # several backends costs one class's analysis, not the file's (0.9 s -> see benchmarks).
    key = (name, bases, cls_name)
    if key not in _by_module:
        module = sys.modules.get(name)
        _by_module[key] = _parse(lambda: inspect.getsource(module), bases,
                                 frozenset({cls_name})) if module else None
    return _by_module[key]


def _parse(source, bases: tuple, only=None):
    from lint_rules.options import Options
    from lint_rules.rules._facts import analyse

    try:
        return analyse(ast.parse(source()), Options(backend_bases=bases), only=only)
    except Exception:  # noqa: BLE001 - no source (compiled, generated) or code the lint
        return None  # cannot read: names decide, and a launch is never stopped by this
