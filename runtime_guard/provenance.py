"""Which boolean attributes a backend class decides from an SWA pool test, read from its code.

A flag's value alone cannot say where it came from: ``window_kv_enabled = isinstance(pool,
SWAKVPool)`` and ``has_swa = sliding_window_size > -1`` are both True on a hybrid model, and
only the first goes stale when a FROZEN_KV MTP draft's pool is swapped. The lint's own analysis
(``lint_rules.rules._facts``, the taint model behind KVP002/KVP003) already tells the two
apart by how each is computed, whatever it is called, so the generic guard asks it, once per
class, over the source of each class in its MRO.

Each module is parsed once per process, and analysed as the lint's CLI analyses a package:
one ``lint_rules.package.PackageIndex`` over the source files of the loaded modules (not the
libraries: the standard library and installed distributions other than SGLang and the backend's
own), which parses and summarises each module once, so a verdict made by a helper of another
module (``paged = helpers.swa_or_none(pool) is not None``) is followed into that helper's
source, and a base class of another module is read as its subclasses see it. A class defined in
a function is analysed from its own source beside its module's names. ``None`` means no source
could be read (a compiled or generated class): the caller falls back to names.

A helper is followed however the module binds its name: by ``def`` or import, as the lint reads
them, and by assignment too (``_is_swa = helpers.is_swa``, an alias of that alias,
``staticmethod(f)``, ``functools.partial(f, strict=True)``, a name bound in one arm of an
``if``), which the text alone cannot resolve: the live module says which function the name
holds (``_bind_assigned``), and the analysis then reads it as a def or an import of it.
"""

from __future__ import annotations

import ast
import functools
import gc
import inspect
import os
import re
import sys
import sysconfig
import textwrap
import types
from typing import NamedTuple, Optional

_by_class: dict = {}  # class -> Proven, or None
_modules: dict = {}  # module name -> _Parsed, or None: each module parsed once per process
_wide: dict = {}  # module name -> its ModuleScope with the package index, or None
_helpers: dict = {}  # qualified function name -> its parsed source, or None
_shared: dict = {}  # "index": the PackageIndex, "files" it holds, "tops": analysed packages
_SGLANG = "sglang"
_LIBRARY_DIRS = tuple(sorted({os.path.join(sysconfig.get_paths()[key], "") for key in (
    "stdlib", "platstdlib", "purelib", "platlib")}))


class Proven(NamedTuple):
    """What a class's code says of its attributes (kept across forwards)."""

    flags: frozenset  # SWA decisions: a pool or allocator type test, a runner's SWA flag
    swa_state: frozenset  # SWA state read off a pool (a sub-pool, its mapping, a table of it)
    refreshed: frozenset = frozenset()  # written in place outside __init__ (kept current)
    choices: tuple = ()  # (attr, method if SWA, method if not): a verdict kept as a choice
    verdicts: tuple = ()  # (attr, module, value if SWA, value if not): a flag kept as a value
    truths: tuple = ()  # (attr, negated): a flag kept as the truth of a number or tensor
    # (attr, its clean fields): the fields of an object the analysis knows hold nothing
    # derived from a pool (``self.meta = Meta(n, sub_pool)``: ``meta.seqlens``)
    fields: tuple = ()
    # attributes whose object the code re-validates by identity against the live pool before
    # use (``if self._plan is None or self._plan.source is not pool: rebuild``): a memo
    # keyed by the pool, whatever pool it holds now is refilled before a launch reads it
    validated: frozenset = frozenset()


class _Parsed(NamedTuple):
    """One module's tree and what its names mean."""

    tree: ast.AST
    source: str
    local: object  # lint_rules.rules._facts.ModuleScope: what the module's own text says
    path: str


def proven(cls: type, stop: type) -> Optional[Proven]:
    """What the lint's analysis says of ``cls`` and its bases below ``stop`` (``FileFacts.flag``
    and the taint of each store); None when no class's source could be read."""
    if cls not in _by_class:
        collecting = gc.isenabled()
        gc.disable()  # the trees are garbage-free; collections over a served model's heap
        try:  # triple the analysis' time
            _by_class[cls] = _read(cls, stop)
        except Exception:  # noqa: BLE001 - code the lint cannot read: names decide, and a
            _by_class[cls] = None  # launch is never stopped by the analysis itself
        finally:
            if collecting:
                gc.enable()
    return _by_class[cls]


def _read(cls: type, stop: type) -> Optional[Proven]:
    # The class is a backend whatever its bases are called: every class of its MRO counts as
    # a backend base for the lint (whose name-based test serves files, not live classes).
    from lint_rules.options import Options

    options = Options(backend_bases=tuple(sorted(
        {klass.__name__ for klass in cls.__mro__ if klass is not object})))
    classes = _below(cls, stop)
    local = _collect(_facts_of(classes, options, packaged=False))
    if local is None:
        return None
    # What only the package analysis proves rests on a helper of another module: held only
    # where that helper's code names SWA state (the lint's vocabulary), because the lint reads
    # any "pool if <type test> else None" as the SWA pool, whatever class it tests
    # (kv_shard_hooks.get_kv_shard_pool tests a page-interleaved pool). No store calling such
    # a helper: the package cannot add anything held, and is not analysed.
    refreshed = _refreshed(classes)
    if not any(map(_vouched, local.stores.values())):
        return Proven(frozenset(local.flags), frozenset(local.state - local.flags), refreshed,
                      _choices(classes, local.flags), _verdicts(classes, local.flags | local.state),
                      _truths(classes), _fields(local.fields), _validated(classes))
    wide = _collect(_facts_of(classes, options, packaged=True)) or local
    flags = local.flags | {a for a in wide.flags - local.flags if _vouched(wide.stores[a])}
    state = local.state | {a for a in wide.state - local.state if _vouched(wide.stores[a])}
    return Proven(frozenset(flags), frozenset(state - flags), refreshed,
                  _choices(classes, flags), _verdicts(classes, flags | state), _truths(classes),
                  _fields(local.fields), _validated(classes))


def _fields(described: dict) -> tuple:
    return tuple((attr, frozenset(clean)) for attr, clean in sorted(described.items()))


def _verdicts(classes: list, flags: set) -> tuple:
    """A value chosen by an SWA pool test for each flag or SWA state ``x`` the analysis proved
    (``_two_way``: ``A if <test> else B``, both branches of an ``if``, ``(B, A)[<test>]``,
    ``{True: A, False: B}[<test>]``, ``MODES[<test>]``; the test is an SWA pool test, whatever
    it calls, also through a local bound to it) whose values are constants, dotted names (an
    enum member, a module constant) or items of a named container: the verdict kept as a value,
    ``"swa"``, ``KV.PAGED``. (attr, module, (kind, value) if SWA, (kind, value) if not), kind
    ``const``, ``name`` or ``item``; an attribute stored with two different pairs is left out."""
    found: dict = {}
    for klass in classes:
        namespace = vars(sys.modules.get(klass.__module__, types))
        for attr, test, branches, local in _stores(klass).two_way:
            polarity = _swa_polarity(test, local, namespace)
            values = tuple(map(_value_of, branches))
            # Proven by the lint, or a pool type test itself (``int(not isinstance(pool,
            # SWAKVPool))``, where the lint's taint stops at the conversion).
            decided = attr in flags or _is_swa_type_test(_unwrapped(test, local))
            if decided and None not in values and polarity is not None:
                found.setdefault(attr, set()).add(
                    (klass.__module__, *(values if polarity else values[::-1])))
    return tuple((attr, *next(iter(pairs))) for attr, pairs in found.items() if len(pairs) == 1)


def _truths(classes: list) -> tuple:
    """(attr, negated) for each ``x`` whose truth a store decides by an SWA pool test
    (``_truth_store``: ``torch.tensor(is_swa(pool))``, ``np.int64(pool.size_swa if is_swa(pool)
    else 0)``), where the conversion or the number stops the lint's taint: a flag kept as a
    number or a tensor. An attribute stored with both polarities is left out."""
    found: dict = {}
    for klass in classes:
        namespace = vars(sys.modules.get(klass.__module__, types))
        for attr, test, flip, local in _stores(klass).truths:
            polarity = _swa_polarity(test, local, namespace)
            if polarity is not None:
                found.setdefault(attr, set()).add(polarity == flip)
    return tuple((attr, negated.pop()) for attr, negated in found.items() if len(negated) == 1)


# Calls that keep a value's truth: ``bool``/``int``, numpy's scalar types and arrays, tensors.
_CONVERSIONS = frozenset({"bool", "int", "float", "bool_", "int8", "int16", "int32", "int64",
                          "uint8", "intp", "array", "asarray", "tensor", "as_tensor"})


def _truth_store(value: ast.AST) -> Optional[tuple]:
    """(test, flip) for a stored value whose truth is ``test``'s (``not test``'s with ``flip``):
    a test under conversions (``torch.tensor(t)``, ``int(t)``), or a two-way pick between
    something and a falsy constant, converted or not (``np.int64(n if t else 0)``)."""
    converted = False
    while (isinstance(value, ast.Call) and len(value.args) == 1
           and ast.unparse(value.func).rpartition(".")[2] in _CONVERSIONS):
        value, converted = value.args[0], True
    if isinstance(value, ast.IfExp):
        falsy = [isinstance(branch, ast.Constant) and not branch.value
                 for branch in (value.body, value.orelse)]
        return (value.test, falsy[0]) if falsy.count(True) == 1 else None
    return (value, False) if converted else None


class _Stores(NamedTuple):
    """What one class's methods store on ``self``, read in one walk of each method."""

    two_way: tuple  # (attr, test, (value if true, value if false), locals bound once)
    assigned: dict  # attr -> names of the methods assigning it
    truths: tuple = ()  # (attr, test, flip, locals bound once): see ``_truth_store``


_class_stores: dict = {}  # class -> _Stores (a base's read once for all its subclasses)


def _stores(klass: type) -> _Stores:
    cached = _class_stores.get(klass)
    if cached is None:
        two_way, assigned, truths = [], {}, []
        for method in _methods(_class_node(klass)):
            local = None  # read only for a test through a local
            for stmt in ast.walk(method):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    attr = next(_self_attr(stmt.targets[0]), None)
                    if attr is not None:
                        assigned.setdefault(attr, set()).add(method.name)
                        truth = _truth_store(stmt.value)
                        if truth is not None:
                            if local is None and isinstance(_unwrapped(truth[0], {}), ast.Name):
                                local = _single_locals(method)
                            truths.append((attr, *truth, local or {}))
                for attr, test, branches in _two_way_stores(stmt):
                    if local is None and isinstance(_unwrapped(test, {}), ast.Name):
                        local = _single_locals(method)
                    two_way.append((attr, test, branches, local or {}))
        cached = _class_stores[klass] = _Stores(tuple(two_way), assigned, tuple(truths))
    return cached


_runner_reads: dict = {}  # class -> frozenset of attributes (``runner_pool_reads``)


def runner_pool_reads(klass: type) -> frozenset:
    """The attributes ``x`` whose pool ``self.x.token_to_kv_pool`` a method of ``klass`` (or of
    a base below SGLang's backend base) other than ``__init__`` reads: a model runner kept to
    read its pool when the launch runs, where a FROZEN_KV draft's runner holds its own pool."""
    from lint_rules.rules._vocab import ACTIVE_POOL

    cached = _runner_reads.get(klass)
    if cached is None:
        found = set()
        for base in klass.__mro__:
            if base is object or base.__name__ == "AttentionBackend":
                break
            for method in _methods(_class_node(base)):
                if method.name == "__init__":
                    continue
                found.update(attr for node in ast.walk(method) if isinstance(
                    node, ast.Attribute) and node.attr == ACTIVE_POOL
                    for attr in _self_attr(node.value))
        cached = _runner_reads[klass] = frozenset(found)
    return cached


def _unwrapped(test: ast.AST, local: dict) -> ast.AST:
    """``test`` read through ``not`` and locals bound once (``_single_locals``)."""
    for _ in range(8):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        elif isinstance(test, ast.Name) and test.id in local:
            test = local[test.id]
        else:
            break
    return test


def _methods(node: Optional[ast.ClassDef]) -> list:
    return [m for m in (node.body if node is not None else ())
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _single_locals(method: ast.AST) -> dict:
    """name -> value for the locals ``method`` binds exactly once, by a plain ``name = value``
    (``is_swa = isinstance(pool, SWAKVPool)``): a test read through one is that test."""
    bound: dict = {}
    for node in ast.walk(method):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For,
                                               ast.NamedExpr)) else [])
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    plain = isinstance(node, ast.Assign) and target is name and len(
                        node.targets) == 1
                    bound.setdefault(name.id, []).append(node.value if plain else None)
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and values[0] is not None}


def _two_way_stores(stmt: ast.AST):
    """(attr, test, (value if true, value if false)) for ``self.x = <two-way value>``
    (``_two_way``) and for ``if test: self.x = A`` / ``else: self.x = B`` (each branch's own
    top-level stores)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        attr = next(_self_attr(stmt.targets[0]), None)
        chosen = _two_way(stmt.value) if attr is not None else None
        if chosen is not None:
            yield attr, chosen[0], chosen[1:]
    elif isinstance(stmt, ast.If) and stmt.orelse:
        then, other = _constant_stores(stmt.body), _constant_stores(stmt.orelse)
        for attr in then.keys() & other.keys():
            yield attr, stmt.test, (then[attr], other[attr])


class _Item(NamedTuple):
    """The item of a named container (a module constant, a class attribute) at ``key``."""

    container: str
    key: bool


def _two_way(value: ast.AST) -> Optional[tuple]:
    """(test, value if true, value if false) of a value picked by a test: ``A if test else
    B``, or a container indexed by the test (``int()``/``bool()`` of it too): a two-item tuple
    or list display (``(B, A)[test]``), a dict display keyed ``True``/``False``, or a named one
    (``MODES[test]``, ``self.MODES[test]``: its items are ``_Item``s, read at launch)."""
    if isinstance(value, ast.IfExp):
        return value.test, value.body, value.orelse
    if not isinstance(value, ast.Subscript):
        return None
    test, container = value.slice, value.value
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and len(test.args) == 1
            and test.func.id in ("int", "bool")):
        test = test.args[0]
    if isinstance(container, (ast.Tuple, ast.List)) and len(container.elts) == 2:
        return test, container.elts[1], container.elts[0]
    if isinstance(container, ast.Dict):
        keyed = {key.value: item for key, item in zip(container.keys, container.values)
                 if isinstance(key, ast.Constant) and key.value in (True, False)}
        return (test, keyed[True], keyed[False]) if len(keyed) == 2 else None
    named = _value_of(container)
    if named is not None and named[0] == "name" or _self_attr_path(container):
        path = named[1] if named is not None else _self_attr_path(container)
        return test, _Item(path, True), _Item(path, False)
    return None


def _self_attr_path(node: ast.AST) -> Optional[str]:
    """``self.X`` / ``type(self).X`` as ``"self.X"`` (a class attribute read through self)."""
    if isinstance(node, ast.Attribute) and (
            _is_self(node.value) or ast.unparse(node.value) == "type(self)"):
        return f"self.{node.attr}"
    return None


def _constant_stores(body: list) -> dict:
    found = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            attr = next(_self_attr(stmt.targets[0]), None)
            if attr is not None:
                found[attr] = stmt.value
    return found


# Words that turn a helper's answer around (``swa_disabled(pool)``, ``skip_swa``, ``is_full``).
_NEGATING = re.compile(r"disable|skip|without|(^|_)(not?|non|full)(_|$)")


def _swa_polarity(test: ast.AST, local: Optional[dict] = None,
                  namespace: Optional[dict] = None) -> Optional[bool]:
    """True when ``test`` is True for an SWA pool, False when it is True for any other, None
    when its words do not say (the branch that means SWA is then not known): ``isinstance(p,
    SWAKVPool)``, ``is_swa(p)``, ``hasattr(p, "swa_kv_pool")``, ``type(p).__name__ ==
    "SWAKVPool"``, each under any number of ``not``, directly or through a local bound once to
    one (``local``: ``_single_locals``). A called name whose words say nothing is read by the
    name of the function it holds in ``namespace`` (``_probe = helpers.is_swa``)."""
    from lint_rules.rules._vocab import is_swa_word

    polarity, hops = True, 0
    while hops < 8:
        hops += 1
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, polarity = test.operand, not polarity
        elif isinstance(test, ast.Name) and local and test.id in local:
            test = local[test.id]
        else:
            break
    if isinstance(test, ast.Call) and len(test.args) == 2 and isinstance(
            test.func, ast.Name) and test.func.id in ("isinstance", "hasattr"):
        words = [ast.unparse(kind).rpartition(".")[2] for kind in (
            test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]])]
        return polarity if all(map(is_swa_word, words)) else None
    if isinstance(test, ast.Call):
        name = ast.unparse(test.func).rpartition(".")[2]
        held = _function_behind(namespace.get(name)) if namespace and isinstance(
            test.func, ast.Name) and not is_swa_word(name) else None
        name = held.__name__ if held is not None else name
        return polarity if is_swa_word(name) and not _NEGATING.search(name.lower()) else None
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
            and is_swa_word(str(test.comparators[0].value))):
        return polarity
    return None


def _value_of(node: ast.AST):
    """("const", value) for a literal, ("name", "a.b") for a name or dotted name (a module
    constant, an enum member: resolved in the module, so a local name resolves to nothing);
    None otherwise."""
    if isinstance(node, _Item):
        return ("item", (node.container, node.key))
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)) and (
            not isinstance(node.value, bool)):
        return ("const", node.value)
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id not in ("self", "cls", "None", "True", "False"):
        return ("name", ".".join([node.id, *reversed(parts)]))
    return None


class Lookup(NamedTuple):
    """A property whose getter returns one entry of a registry: ``G[id(self)]``, ``G[self]``,
    ``G.get(id(self))``. ``path``: where ``G`` is, from a module global (``("G",)``,
    ``("Registry", "entries")``) or from the class (``("self", "G")`` for ``self.G`` and
    ``type(self).G``)."""

    path: tuple
    by_id: bool


def registry_lookup(getter) -> Optional[Lookup]:
    """The registry lookup ``getter`` (a property's ``fget``) is, read from its source: its body
    (a docstring aside) is one ``return`` of a subscript or ``.get`` keyed by ``id(self)`` or
    ``self``. None for anything else (a getter that computes, calls a helper, reads the pool)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getter)))
    except Exception:  # noqa: BLE001 - no source: not followed
        return None
    function = tree.body[0] if tree.body else None
    body = list(getattr(function, "body", ()))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    value = body[0].value
    if isinstance(value, ast.Subscript):
        container, key = value.value, value.slice
    elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
          and value.func.attr == "get" and value.args):
        container, key = value.func.value, value.args[0]
    else:
        return None
    by_id = (isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and key.func.id == "id"
             and len(key.args) == 1 and _is_self(key.args[0]))
    if not (by_id or _is_self(key)):
        return None
    path = []
    while isinstance(container, ast.Attribute):
        path.append(container.attr)
        container = container.value
    if isinstance(container, ast.Call) and ast.unparse(container) == "type(self)":
        path.append("self")
    elif isinstance(container, ast.Name) and (path or container.id != "self"):
        path.append(container.id)
    else:
        return None
    return Lookup(tuple(reversed(path)), by_id)


# Calls a lookup may make: builtins that compute a key or read an attribute, and dict.get.
_KEY_CALLS = frozenset({"id", "hash", "str", "int", "bool", "tuple", "frozenset", "len", "type",
                        "getattr", "isinstance", "repr", "format"})
_IMPURE = (ast.Global, ast.Nonlocal, ast.Delete, ast.Yield, ast.YieldFrom, ast.Await, ast.For,
           ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.AugAssign, ast.Lambda)
_computed: dict = {}  # function -> whether it is a computed lookup


def computed_lookup(function) -> bool:
    """Whether ``function`` (a property's getter, or a method taking only ``self``) computes a
    lookup and does nothing else, so the guard may call it per launch: it subscripts or
    ``.get``s something, binds only locals, calls only key builtins (``id``, ``str``, ``tuple``,
    ``getattr``, ...), ``.get`` and module functions of the same kind (two calls deep), never
    reads the active pool (a live read needs no check) and has no loop, ``with``, ``global`` or
    store outside its locals. ``REG[(id(self), "kv")]``, ``REG.get(id(self), {}).get("kv")``,
    ``_lookup(self)``, ``type(self).pools[self.name]``. The single-lookup property
    (``registry_lookup``) is one; its source says so without a call."""
    if function not in _computed:
        _computed[function] = _pure_lookup(function, 2) == (True, True)
    return _computed[function]


def _pure_lookup(function, depth: int) -> tuple:
    """(pure, looks something up) for ``function``'s code, calls followed ``depth`` deep."""
    from lint_rules.rules._vocab import ACTIVE_POOL

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except Exception:  # noqa: BLE001 - no source: never called
        return False, False
    body = tree.body[0] if tree.body else None
    if not isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(
            body, ast.AsyncFunctionDef):
        return False, False
    looks_up = False
    for node in ast.walk(body):
        if node is body:
            continue
        if isinstance(node, _IMPURE) or (isinstance(node, ast.FunctionDef)):
            return False, False
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            targets = getattr(node, "targets", None) or [node.target]
            if not all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets):
                return False, False
        elif isinstance(node, ast.Attribute) and node.attr == ACTIVE_POOL:
            return False, False
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            looks_up = True
        elif isinstance(node, ast.Call):
            pure, inner = _pure_call(node, function, depth)
            if not pure:
                return False, False
            looks_up = looks_up or inner
    return True, looks_up


def _pure_call(call: ast.Call, function, depth: int) -> tuple:
    """(pure, looks up) for one call in ``function``'s code."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "get":
        return True, True
    if not isinstance(func, ast.Name):
        return False, False
    if func.id in _KEY_CALLS and func.id not in getattr(function, "__globals__", {}):
        return True, False
    helper = getattr(function, "__globals__", {}).get(func.id)
    if depth > 1 and isinstance(helper, types.FunctionType):
        return _pure_lookup(helper, depth - 1)
    return False, False


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _choices(classes: list, flags) -> tuple:
    """``self.x = self.a if isinstance(pool, <an SWA class>) else self.b`` (or ``not``; or any
    two-way pick of ``_two_way`` by an SWA test, ``(self.b, self.a)[is_swa]``, where the
    analysis proved ``x`` a flag) stored where ``x`` is assigned in no other method: which of
    the class's own methods a launch calls was decided once from a pool's type. (attr, method
    chosen for an SWA pool, the other)."""
    found, assigned = {}, {}
    for klass in classes:
        namespace = vars(sys.modules.get(klass.__module__, types))
        stores = _stores(klass)
        for attr, methods in stores.assigned.items():
            assigned.setdefault(attr, set()).update(methods)
        for attr, test, branches, local in stores.two_way:
            picked = _picked_by_swa_test(test, branches, local, attr in flags, namespace)
            if picked is not None:
                found.setdefault(attr, picked)
    return tuple((attr, *picked) for attr, picked in found.items()
                 if len(assigned.get(attr, ())) == 1)


def _picked_by_swa_test(test: ast.AST, branches: tuple, local: dict, proven_flag: bool,
                        namespace: dict):
    if _is_swa_type_test(test):
        polarity = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
    else:  # any other SWA test only where the lint proved the attribute an SWA decision
        polarity = _swa_polarity(test, local, namespace) if proven_flag else None
    methods = [next(_self_attr(branch), None) for branch in branches
               if isinstance(branch, ast.AST)]
    if polarity is None or len(methods) != 2 or None in methods:
        return None
    return tuple(methods) if polarity else tuple(reversed(methods))


def _is_swa_type_test(test: ast.AST) -> bool:
    from lint_rules.rules._vocab import is_swa_word

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance" and len(test.args) == 2):
        return False
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return all(is_swa_word(ast.unparse(kind).rpartition(".")[2]) for kind in kinds)


def _refreshed(classes: list) -> frozenset:
    """Attributes a method other than ``__init__`` writes into in place: ``self.x.copy_(...)``
    (any in-place tensor method, named with a trailing underscore), ``self.x[...] = ...``,
    ``out=self.x``: a buffer made at init and filled per forward (CUDA-graph style)."""
    found = set()
    for klass in classes:
        node = _class_node(klass)
        for method in node.body if node is not None else ():
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    method.name != "__init__"):
                found.update(_written_in_place(method))
    return frozenset(found)


def _validated(classes: list) -> frozenset:
    """Attributes a method compares by identity (``is`` / ``is not``) with the live pool,
    ``self.token_to_kv_pool`` or a local bound to it: ``self._plan.source is not pool``."""
    from lint_rules.rules._flow import self_path
    from lint_rules.rules._vocab import ACTIVE_POOL

    found = set()
    for klass in classes:
        node = _class_node(klass)
        for method in node.body if node is not None else ():
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            nodes = list(ast.walk(method))
            live = {target.id for n in nodes if isinstance(n, ast.Assign)
                    and self_path(n.value) == ACTIVE_POOL
                    for target in n.targets if isinstance(target, ast.Name)}
            for compare in nodes:
                if not isinstance(compare, ast.Compare) or not all(
                        isinstance(op, (ast.Is, ast.IsNot)) for op in compare.ops):
                    continue
                sides = (compare.left, *compare.comparators)
                if not any(self_path(side) == ACTIVE_POOL or isinstance(side, ast.Name)
                           and side.id in live for side in sides):
                    continue
                found.update(path.partition(".")[0] for path in map(self_path, sides)
                             if path and path != ACTIVE_POOL)
    return frozenset(found)


def _written_in_place(method: ast.AST):
    for node in ast.walk(method):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr.endswith("_") and not (
                    func.attr.startswith("_")):
                yield from _self_attr(func.value)
            for keyword in node.keywords:
                if keyword.arg == "out":
                    yield from _self_attr(keyword.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                if isinstance(target, ast.Subscript):
                    yield from _self_attr(target.value)


def _self_attr(node: ast.AST):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
            node.value.id == "self"):
        yield node.attr


def _class_node(klass: type) -> Optional[ast.ClassDef]:
    """The class statement of ``klass`` in its module's parsed tree (a module-level class), or
    parsed from its own source (a class defined in a function); None without source."""
    parsed = _parsed(klass.__module__)
    if parsed is not None and klass.__qualname__ == klass.__name__:
        for node in parsed.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == klass.__name__:
                return node
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
    except Exception:  # noqa: BLE001 - no source (generated, compiled): nothing refreshed
        return None
    return next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)


class _Collected(NamedTuple):
    flags: set
    state: set
    stores: dict  # attr -> [(Store, the ModuleScope it was analysed in)]
    fields: dict  # attr -> the paths of its fields derived from no pool (``Proven.fields``)


def _collect(pairs: list) -> Optional[_Collected]:
    """Proven flags and SWA state of (FileFacts, ClassFacts, scope) triples; None if none."""
    from lint_rules.rules._flow import Taint

    if not pairs:
        return None
    found = _Collected(set(), set(), {}, {})
    for facts, node, scope in pairs:
        for relative in facts.relatives(node):
            for path, taint in relative.fields.items():
                if not taint:  # (a field the code fills with nothing derived from a pool)
                    found.fields.setdefault(path.partition(".")[0], set()).add(path)
        stores = [store for relative in facts.relatives(node) for store in relative.stores]
        for store in stores:
            found.stores.setdefault(store.attr, []).append((store, scope))
        attrs = {store.attr for store in stores}
        attrs |= {name for relative in facts.relatives(node) for name in relative.properties}
        found.flags.update(attr for attr in attrs if _says_swa(facts.flag(node, attr)))
        found.state.update(store.attr for store in stores if store.sink  # (a class
                           and store.scope in ("self", "class") and store.bits & Taint.SWA)
        # attribute too: ``type(self)._maps[type(self)] = mapping``)
    return found


_HELPER_DEPTH = 3  # a helper, the helpers it calls, theirs: deeper verdicts are not vouched


def _vouched(stores: list) -> bool:
    """Some store of the attribute calls a function of another module whose code names SWA
    state (``isinstance(pool, SWAKVPool)``, ``translate_loc_from_full_to_swa``), itself or
    through the functions it calls (``pages_split`` -> ``_kind_of``, to ``_HELPER_DEPTH``)."""
    for store, scope in stores:
        for call in ast.walk(store.value) if store.value is not None else ():
            qualified = scope.qualified(call.func) if isinstance(call, ast.Call) else None
            if qualified and _helper_names_swa(qualified, _HELPER_DEPTH):
                return True
    return False


def _helper_names_swa(qualified: str, depth: int) -> bool:
    tree = _function_tree(qualified)
    if _names_swa(tree):
        return True
    return depth > 1 and tree is not None and any(
        _helper_names_swa(callee, depth - 1) for callee in _callees(qualified, tree))


def _callees(qualified: str, tree: ast.AST) -> list:
    """Qualified names of the module functions ``qualified``'s code calls (``helper(...)``,
    ``module.helper(...)``), resolved in its module's globals."""
    module = sys.modules.get(qualified.rpartition(".")[0])
    found = []
    for call in ast.walk(tree):
        func = call.func if isinstance(call, ast.Call) else None
        if isinstance(func, ast.Name):
            target = getattr(module, func.id, None)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            target = getattr(getattr(module, func.value.id, None), func.attr, None)
        else:
            continue
        target = _function_behind(target)
        if target is not None:
            found.append(f"{target.__module__}.{target.__qualname__}")
    return [name for name in dict.fromkeys(found) if name != qualified]


def _names_swa(tree: Optional[ast.AST]) -> bool:
    """A name, attribute or string of the code (its docstring aside) is SWA vocabulary."""
    from lint_rules.rules._vocab import is_swa_word

    if tree is None:
        return False
    doc = ast.get_docstring(tree.body[0], clean=False) if tree.body else None
    for node in ast.walk(tree):
        word = (node.id if isinstance(node, ast.Name) else node.attr
                if isinstance(node, ast.Attribute) else node.value
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and node.value != doc else "")
        if is_swa_word(word):
            return True
    return False


def _function_tree(qualified: str) -> Optional[ast.AST]:
    """The parsed source of the function ``pkg.mod.name`` names in this process, or None."""
    if qualified not in _helpers:
        _helpers[qualified] = _parse_function(qualified)
    return _helpers[qualified]


def _parse_function(qualified: str) -> Optional[ast.AST]:
    module, _, name = qualified.rpartition(".")
    owner, _, method = module.rpartition(".")  # pkg.mod.C.of: a static or class method
    try:
        function = _function_behind(getattr(sys.modules.get(module), name, None) if (
            module in sys.modules) else getattr(getattr(sys.modules.get(owner), method, None),
                                                name, None))
        if function is not None:
            return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except Exception:  # noqa: BLE001 - no source, or a module whose attribute reads raise
        pass
    return None


def _below(cls: type, stop: type) -> list:
    found = []
    for klass in cls.__mro__:
        if klass is stop or klass is object:
            break
        found.append(klass)
    return found


def _says_swa(flag) -> bool:
    """A flag the guard may hold to the active pool: one whose value says "the pool is SWA"
    (not a test of another pool class, nor a choice made under another flag)."""
    return flag is not None and flag.says_swa


def _facts_of(classes: list, options, packaged: bool) -> list:
    """(FileFacts, ClassFacts, ModuleScope) for each of ``classes`` whose source can be read:
    one analysis per module for the module-level classes it defines, one per class defined
    elsewhere; ``packaged``: with the package index (helpers and bases of other modules)."""
    from lint_rules.rules._facts import analyse

    by_module: dict = {}
    for klass in classes:
        by_module.setdefault(klass.__module__, []).append(klass)
    found = []
    for name, members in by_module.items():
        parsed = _parsed(name)
        scope = None if parsed is None else _packaged(name, parsed) if packaged else parsed.local
        top = [k for k in members if scope is not None and k.__qualname__ == k.__name__
               and k.__name__ in scope.classes]
        if top:
            facts = analyse(parsed.tree, options, scope.package, name, path=parsed.path,
                            only=frozenset(k.__name__ for k in top), scope=scope)
            found += [(facts, facts.by_name[k.__name__], scope) for k in top
                      if k.__name__ in facts.by_name]
        for klass in (k for k in members if k not in top):
            found += _own_facts(klass, scope, options)
    return found


def _own_facts(klass: type, scope, options) -> list:
    """A class defined in a function (or not found in its module's text): its own source,
    with its module's imports and helpers when the module could be read."""
    from lint_rules.rules._facts import ModuleScope, analyse

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
    except Exception:  # noqa: BLE001 - no source (generated, compiled): nothing proven
        return []
    scope = scope or ModuleScope(tree)
    facts = analyse(tree, options, scope.package, klass.__module__,
                    only=frozenset({klass.__name__}), scope=scope)
    node = facts.by_name.get(klass.__name__)
    return [(facts, node, scope)] if node is not None else []


def _parsed(name: str) -> Optional[_Parsed]:
    """The module's tree and names, parsed once per process (None: no source)."""
    from lint_rules.rules._facts import ModuleScope

    if name not in _modules:
        module = sys.modules.get(name)
        path = _file_of(module)
        try:
            source = inspect.getsource(module) if path else None
            tree = ast.parse(source) if source else None
        except Exception:  # noqa: BLE001 - no source (compiled, generated) or unreadable
            tree = None
        _modules[name] = _Parsed(tree, source, _bind_assigned(
            ModuleScope(tree, None, name, path or ""), module), path) if tree else None
    return _modules[name]


def _function_behind(value) -> Optional[types.FunctionType]:
    """The function of the package a call of ``value`` runs with the caller's arguments in
    place: ``value`` itself, a ``staticmethod``'s or a class's bound classmethod's function, a
    ``functools.partial`` binding keywords only (one binding positions would shift them), through
    any number of those; None for anything else (a builtin, a closure made in a function)."""
    for _ in range(8):
        if isinstance(value, staticmethod) or (
                isinstance(value, types.MethodType) and isinstance(value.__self__, type)):
            value = value.__func__
        elif isinstance(value, functools.partial) and not value.args:
            value = value.func
        else:
            break
    if isinstance(value, types.FunctionType) and "<" not in value.__qualname__:
        return value
    return None


def _bind_assigned(scope, module):
    """``scope`` (a ModuleScope of ``module``'s text) told which function each module-level name
    the text binds by assignment holds in the live ``module``: this module's function is that
    def (``x = f``, ``x = staticmethod(f)``), another module's an import of it (``x =
    helpers.is_swa``, an alias of that alias). A def the live name no longer holds (an ``if``
    arm assigning it, the other defining a fallback) gives way; imports stay as the text says."""
    namespace = vars(module) if module is not None else {}
    for name in sorted(scope.globals - scope.imports.keys() - scope.classes.keys()):
        function = _function_behind(namespace.get(name))
        if function is None or (function.__module__, function.__qualname__) == (
                module.__name__, name):
            continue  # not a function, or the def of that very name
        scope.functions.pop(name, None)
        if function.__module__ == module.__name__ and function.__qualname__ in scope.functions:
            scope.functions[name] = scope.functions[function.__qualname__]
            if function.__qualname__ in scope.cached:
                scope.cached.add(name)
        else:
            scope.imports[name] = f"{function.__module__}.{function.__qualname__}"
    return scope


def _packaged(name: str, parsed: _Parsed):
    """The module's names with its imports resolved by the package index, which adopts the
    tree already parsed (it parses and summarises every other module once itself)."""
    if name not in _wide:
        index = _index_with(sys.modules[name], parsed.path)
        index.adopt(parsed.path, parsed.tree, parsed.source)
        found = index.module(name, near=parsed.path)
        _wide[name] = found.scope if found is not None and found.path == parsed.path else None
    return _wide[name] or parsed.local


def _index_with(module, path: str):
    """The process's package index, over the source files of every loaded module that is not
    a library; made again when ``module`` (loaded since) or its package is not in it."""
    from lint_rules.package import PackageIndex

    tops = _shared.setdefault("tops", set())
    tops.add(module.__name__.partition(".")[0])
    if path not in _shared.get("files", ()):
        files = {path} | {_file_of(loaded) for name, loaded in list(sys.modules.items())
                          if not _library(name, tops)}
        files.discard(None)
        _shared["files"] = frozenset(files)
        _shared["index"] = _live_index(PackageIndex)(sorted(files))
    return _shared["index"]


def _live_index(base: type) -> type:
    """A package index whose module scopes know what the live modules bind by assignment
    (``_bind_assigned``): a helper another module's code calls by such a name is followed."""

    class LiveIndex(base):
        def __init__(self, files, *args, **kwargs):
            self.live = {}  # path -> the loaded module, when a scope of it is first made
            super().__init__(files, *args, **kwargs)

        def _module_of(self, path, tree, text):
            made = super()._module_of(path, tree, text)
            if not self.live:
                self.live = {_file_of(loaded): loaded for loaded in list(sys.modules.values())}
            _bind_assigned(made.scope, self.live.get(path))
            return made

    return LiveIndex


def _file_of(module) -> Optional[str]:
    path = getattr(module, "__file__", None)
    return os.path.abspath(path) if isinstance(path, str) and path.endswith(".py") else None


def _library(name: str, tops: set) -> bool:
    """The standard library and installed distributions other than SGLang and the analysed
    modules' own: the CLI linting SGLang's tree never reads them, they hold no pool verdicts,
    and a call into them is what the lint makes of a call it cannot see."""
    path = _file_of(sys.modules.get(name))
    if path is None:
        return True  # nothing to read: a built-in or compiled module
    top = name.partition(".")[0]
    return top not in tops and top != _SGLANG and path.startswith(_LIBRARY_DIRS)


class GlobalsRead(NamedTuple):
    """Module globals a class's code reads: state kept outside its instances (a context
    variable, a pool set with ``global``), which no attribute of the backend shows."""

    reads: tuple  # (module name, namespace, name, attributes the code reads off it)
    # (module name, namespace, name, attribute or None, polarity): a global, or an attribute of
    # a module or class the code holds as a global, set from an SWA pool test
    verdicts: tuple
    # (module name, namespace, name, key, value if SWA, value if not): an item of a global
    # container (a kernel table) the code sets to a value picked by an SWA pool test
    items: tuple = ()


_globals_by_class: dict = {}  # class -> GlobalsRead
_CALL_DEPTH = 2  # module functions the methods call, and the ones those call


def globals_read(cls: type, stop: type) -> GlobalsRead:
    """The module globals the code of ``cls`` and its bases below ``stop`` reads or sets (its
    methods, properties and the functions nested in them, and the module functions of its own
    package that code calls, two calls deep); and, among those it reads, the ones that code
    sets with ``global`` from an SWA pool test alone (``_W = isinstance(pool, SWAKVPool)``,
    ``not is_swa(pool)``: one polarity, no other store), with the test's polarity, and so for
    an attribute of a module or class of its package held as a global (``_State.w = ...``).
    Read once per class; nothing when the code cannot be read."""
    if cls not in _globals_by_class:
        try:
            _globals_by_class[cls] = _read_globals(cls, stop)
        except Exception:  # noqa: BLE001 - code that cannot be read: no globals followed
            _globals_by_class[cls] = GlobalsRead((), ())
    return _globals_by_class[cls]


def _read_globals(cls: type, stop: type) -> GlobalsRead:
    top = cls.__module__.partition(".")[0]
    todo = [(function, 0) for klass in _below(cls, stop) for value in vars(klass).values()
            for function in _functions_in(value)]
    reads, loaded, setters, seen, item_setters = {}, set(), [], set(), []
    while todo:
        function, depth = todo.pop()
        if function.__code__ in seen:
            continue
        seen.add(function.__code__)
        if _stores_items(function.__code__):
            item_setters.append(function)
        namespace = function.__globals__
        for op, name, attr, stored in _global_names(function.__code__):
            value = namespace.get(name)
            if isinstance(value, types.ModuleType) and isinstance(
                    getattr(value, str(attr), None), types.FunctionType):
                value = getattr(value, attr)  # module.helper(...): a function of that module
            if isinstance(value, types.FunctionType):
                if depth < _CALL_DEPTH and str(value.__module__).partition(".")[0] == top:
                    todo.append((value, depth + 1))
            elif name in namespace:
                key = (id(namespace), name)
                reads.setdefault(key, (namespace.get("__name__", "?"), namespace, name, set()))
                if op == "STORE_GLOBAL" or stored:
                    setters.append(function)
                else:
                    loaded.add(key)
                    if attr is not None:
                        reads[key][3].add(attr)
    verdicts = [(*reads[key[:2]][:3], key[2], polarity)
                for key, polarity in _global_verdicts(setters).items() if key[:2] in reads
                and (key[:2] in loaded if key[2] is None else key[2] in reads[key[:2]][3])]
    items = [(*reads[key[:2]][:3], key[2], *values)
             for key, values in _global_item_verdicts(item_setters).items()
             if key[:2] in reads and key[:2] in loaded]
    return GlobalsRead(tuple((module, namespace, name, frozenset(attrs))
                             for module, namespace, name, attrs in reads.values()),
                       tuple(verdicts), tuple(items))


def _stores_items(code: types.CodeType) -> bool:
    """Whether the code (or the code nested in it) stores into a subscript."""
    import dis

    return any(ins.opname == "STORE_SUBSCR" for ins in dis.get_instructions(code)) or any(
        _stores_items(const) for const in code.co_consts if isinstance(const, types.CodeType))


def _sourced(functions: list):
    """``(function, tree)`` for each distinct function of ``functions`` whose source can be
    read and parsed (one that cannot proves nothing of what it stores)."""
    for function in dict.fromkeys(functions):
        try:
            yield function, ast.parse(textwrap.dedent(inspect.getsource(function)))
        except Exception:  # noqa: BLE001 - no source: its stores prove nothing
            continue


def _global_item_verdicts(setters: list) -> dict:
    """(id(namespace), name, key) -> (value if SWA, value if not) for ``G[key] = A if <SWA
    pool test> else B`` (any two-way pick of ``_two_way``; a bare test stores True/False), where
    ``G`` is a global of the setter's module (not one of its locals) and ``key`` a constant:
    which kernel a module table launches was decided from a pool's type. Values are constants
    or names of the module (functions, enum members); an item stored two ways is left out."""
    found: dict = {}
    for function, tree in _sourced(setters):
        namespace, local = function.__globals__, _single_locals(tree.body[0])
        own = set(function.__code__.co_varnames) | set(function.__code__.co_cellvars)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Subscript)):
                continue
            target = node.targets[0]
            if not (isinstance(target.value, ast.Name) and target.value.id not in own
                    and target.value.id in namespace and isinstance(target.slice, ast.Constant)):
                continue
            key = (id(namespace), target.value.id, target.slice.value)
            picked = _picked_values(node.value, local, namespace)
            try:
                found.setdefault(key, set()).add(picked)
            except TypeError:  # a value that cannot be compared as a verdict is
                found.setdefault(key, set()).add(None)
    return {key: next(iter(picks)) for key, picks in found.items()
            if len(picks) == 1 and None not in picks}


def _picked_values(value: ast.AST, local: dict, namespace: dict) -> Optional[tuple]:
    """(value if SWA, value if not) of a stored value picked by an SWA pool test, or None."""
    polarity = _swa_polarity(value, local, namespace)
    if polarity is not None:
        return (True, False) if polarity else (False, True)
    chosen = _two_way(value)
    polarity = _swa_polarity(chosen[0], local, namespace) if chosen else None
    if polarity is None:
        return None
    values = []
    for branch in chosen[1:]:
        kind_value = _value_of(branch) if isinstance(branch, ast.AST) else None
        if kind_value is None or kind_value[0] == "item":
            return None
        kind, shown = kind_value
        if kind == "name":
            head, *rest = shown.split(".")
            try:
                shown = functools.reduce(getattr, rest, namespace[head])
            except (KeyError, AttributeError):  # a local name or a lazy attribute: unknown
                return None
        values.append(shown)
    return tuple(values) if polarity else tuple(reversed(values))


def _functions_in(value) -> list:
    """The plain functions a class attribute holds: a method, a static or class method's
    function, a property's accessors."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel)
                if isinstance(f, types.FunctionType)]
    return [value] if isinstance(value, types.FunctionType) else []


def _global_names(code: types.CodeType):
    """(opcode name, global name, attribute read or set on it or None, whether it is set) for
    each global the code (and the code nested in it: comprehensions, lambdas, inner
    functions) loads or stores."""
    import dis

    instructions = list(dis.get_instructions(code))
    for instruction, after in zip(instructions, instructions[1:] + [None]):
        if instruction.opname in ("LOAD_GLOBAL", "STORE_GLOBAL"):
            op = after.opname if after is not None else ""
            attr = after.argval if op in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR") else None
            yield instruction.opname, instruction.argval, attr, op == "STORE_ATTR"
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _global_names(const)


def _global_verdicts(setters: list) -> dict:
    """(id(namespace), name, attribute or None) -> polarity for the globals ``setters`` set with
    ``global``, and the attributes they set on a global module or class (``_State.w = ...``),
    only from an SWA pool test of one polarity (any other store, or both polarities: out)."""
    found: dict = {}
    for function, tree in _sourced(setters):
        declared = {name for node in ast.walk(tree) if isinstance(node, ast.Global)
                    for name in node.names}
        ours = id(function.__globals__)
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [
                node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                plain = isinstance(target, (ast.Name, ast.Attribute)) and isinstance(
                    node, ast.Assign)  # unpacked or augmented: not a test's verdict alone
                polarity = _swa_polarity(node.value) if plain else None
                for key in _global_targets(target, declared, function):
                    found.setdefault((ours, *key), set()).add(polarity)
    return {key: next(iter(kinds)) for key, kinds in found.items()
            if len(kinds) == 1 and None not in kinds}


def _global_targets(target: ast.AST, declared: set, function) -> list:
    """(name, None) for a global the store binds, (name, attribute) for ``Name.attr = ...`` on a
    module or class the function holds as a global (not a local of its own)."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        name = target.value.id
        held = function.__globals__.get(name)
        if name not in function.__code__.co_varnames and isinstance(held, (type,
                                                                           types.ModuleType)):
            return [(name, target.attr)]
        return []
    return [(n.id, None) for n in ast.walk(target)
            if isinstance(n, ast.Name) and n.id in declared]


# --------------------------------------------------------------------------- beyond the class
# What the code of the objects a backend holds says: a helper object's class (a metadata
# builder, a multi-step wrapper whose bound method a step keeps), a function it keeps (what its
# closure cells and defaults were bound to where it was made), a model runner read in a
# function's code.

_helper_flags: dict = {}  # class -> {attr: negated}


def helper_flags(klass: type) -> dict:
    """attr -> negated for the bools ``klass`` (a helper object's class, not a backend: its own
    class is read by ``proven``) stores on itself from an SWA pool test alone in any of its
    methods (``self.translated = is_swa(pool)``, ``not isinstance(pool, SWAKVPool)``): one
    polarity, no other store of that attribute. A verdict the helper made from the pool it
    was given, whatever it is called. Classes of the standard library and of installed
    distributions other than SGLang are not read (they decide nothing from a pool)."""
    cached = _helper_flags.get(klass)
    if cached is None:
        try:
            cached = _read_helper_flags(klass)
        except Exception:  # noqa: BLE001 - code that cannot be read: no flag proven
            cached = {}
        _helper_flags[klass] = cached
    return cached


def _read_helper_flags(klass: type) -> dict:
    found: dict = {}
    for base in klass.__mro__:
        if base is object or (base.__module__.partition(".")[0] != _SGLANG
                              and _library(base.__module__, set())):
            continue
        namespace = vars(sys.modules.get(base.__module__, types))
        for method in _methods(_class_node(base)):
            local = None
            for node in ast.walk(method):
                if not (isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))):
                    continue
                targets = getattr(node, "targets", None) or [node.target]
                for attr in (a for target in targets for a in _self_attr(target)):
                    if local is None:
                        local = _single_locals(method)
                    plain = isinstance(node, ast.Assign) and len(targets) == 1
                    polarity = _swa_polarity(node.value, local, namespace) if plain else None
                    found.setdefault(attr, set()).add(polarity)
    return {attr: not polarities.pop() for attr, polarities in found.items()
            if len(polarities) == 1 and None not in polarities}


_captured_flags: dict = {}  # code object -> {name: negated}


def captured_flags(function) -> dict:
    """name -> negated for what ``function`` captured where it was made from an SWA pool test:
    a default argument (``def ids(loc, *, windowed=is_swa(pool))``, positional or keyword-only)
    and a closure cell the enclosing function bound once to such a test (``is_swa =
    isinstance(pool, SWAKVPool)`` beside ``def translate(...)``), read from the enclosing
    function's source (the function's own, for a module-level one). A verdict kept in a
    function, whatever it is called."""
    code = function.__code__
    cached = _captured_flags.get(code)
    if cached is None:
        try:
            cached = _read_captured_flags(function)
        except Exception:  # noqa: BLE001 - no source: nothing proven
            cached = {}
        _captured_flags[code] = cached
    return cached


def _read_captured_flags(function) -> dict:
    code, namespace = function.__code__, function.__globals__
    enclosing = _enclosing(function)
    source_of = enclosing if enclosing is not None else function
    tree = ast.parse(textwrap.dedent(inspect.getsource(source_of)))
    outer = tree.body[0]
    first = source_of.__code__.co_firstlineno - 1
    node = next((n for n in ast.walk(outer) if isinstance(n, (
        ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and _first_line(n) + first == (
            code.co_firstlineno) and getattr(n, "name", "<lambda>") == code.co_name), None)
    if node is None:
        return {}
    local = _single_locals(outer) if enclosing is not None else {}
    args = node.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(arg, value) for arg, value in zip(args.kwonlyargs, args.kw_defaults)
              if value is not None]
    found = {arg.arg: _swa_polarity(value, local, namespace) for arg, value in pairs}
    found.update((name, _swa_polarity(local[name], local, namespace))
                 for name in code.co_freevars if name in local)
    return {name: not polarity for name, polarity in found.items() if polarity is not None}


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def _enclosing(function):
    """The function ``function`` was defined in (``C.__init__`` for ``C.__init__.<locals>.f``),
    found through its module; None for a module-level function or one not found."""
    head, marker, _ = function.__qualname__.rpartition(".<locals>.")
    if not marker or "<locals>" in head:
        return None
    value = sys.modules.get(function.__module__)
    for part in head.split("."):
        value = getattr(value, part, None)
    value = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
    return value if isinstance(value, types.FunctionType) else None


_function_reads: dict = {}  # code object -> frozenset of names


def function_runner_reads(function) -> frozenset:
    """The names (closure cells, parameters: a default holds what it was given) whose
    ``token_to_kv_pool`` ``function``'s code (and the code nested in it) reads when it runs:
    ``lambda: model_runner.token_to_kv_pool`` reads a model runner's pool at call time, which a
    FROZEN_KV draft's swap never rebinds."""
    from lint_rules.rules._vocab import ACTIVE_POOL

    code = function.__code__
    cached = _function_reads.get(code)
    if cached is None:
        cached = _function_reads[code] = frozenset(_names_read_off(code, ACTIVE_POOL))
    return cached


def _names_read_off(code: types.CodeType, attr: str):
    import dis

    instructions = list(dis.get_instructions(code))
    for instruction, after in zip(instructions, instructions[1:]):
        if instruction.opname in ("LOAD_DEREF", "LOAD_FAST", "LOAD_CLOSURE") and (
                after.opname in ("LOAD_ATTR", "LOAD_METHOD") and after.argval == attr):
            yield instruction.argval
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names_read_off(const, attr)
