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
from typing import Optional

_by_class: dict = {}  # class -> frozenset of proven flag names, or None
_by_module: dict = {}  # module name -> FileFacts, or None


def proven_flags(cls: type, stop: type) -> Optional[frozenset]:
    """Attributes that ``cls`` or a base below ``stop`` stores as an SWA decision kept across
    forwards (the lint's ``FileFacts.flag``); None when no class's source could be read."""
    if cls not in _by_class:
        _by_class[cls] = _read(cls, stop)
    return _by_class[cls]


def _read(cls: type, stop: type) -> Optional[frozenset]:
    found, read_any = set(), False
    for klass in cls.__mro__:
        if klass is stop or klass is object:
            break
        facts, node = _facts_of(klass)
        if facts is None:
            continue
        read_any = True
        attrs = {store.attr for relative in facts.relatives(node) for store in relative.stores}
        attrs |= {name for relative in facts.relatives(node) for name in relative.properties}
        found.update(attr for attr in attrs if facts.flag(node, attr) is not None)
    return frozenset(found) if read_any else None


def _facts_of(klass: type):
    """(FileFacts, ClassFacts) of ``klass``, or (None, None)."""
    module = _module_facts(klass.__module__)
    node = module.by_name.get(klass.__name__) if module is not None else None
    if node is not None:
        return module, node
    own = _parse(lambda: textwrap.dedent(inspect.getsource(klass)))
    node = own.by_name.get(klass.__name__) if own is not None else None
    return (own, node) if node is not None else (None, None)


def _module_facts(name: str):
    if name not in _by_module:
        module = sys.modules.get(name)
        _by_module[name] = _parse(lambda: inspect.getsource(module)) if module else None
    return _by_module[name]


def _parse(source):
    from lint_rules.options import Options
    from lint_rules.rules._facts import analyse

    try:
        return analyse(ast.parse(source()), Options())
    except Exception:  # noqa: BLE001 - no source (compiled, generated) or code the lint
        return None  # cannot read: names decide, and a launch is never stopped by this
