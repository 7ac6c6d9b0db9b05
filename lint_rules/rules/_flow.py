"""The taint model of the bug class over Python's ``ast``: what each expression of a method holds.

A value's ``Taint`` says what it carries: the active pool (``POOL``), state read off a pool
(``SWA``: sub-pools, mappings, buffers, bound methods; never geometry), a decision made by a
type or duck test on a pool or allocator (``TYPE``), a runner-level SWA flag (``RUNNER``), a
test of the resolved pool attribute (``MIRROR``), persisted state that the per-forward pool swap
does not update (``STALE``), or a container, closure or record built around state (``RECORD``);
an object built around state (``OBJECT``: ``Helper(pool)``) is a record whose methods are bound
to what it holds.

``MethodFlow`` is an ``ast.NodeVisitor`` over one method body: ``visit_<Expr>`` returns a
value's taint, ``visit_<Stmt>`` binds locals and records **sinks** (stores that outlive the
call) and **gates** (decisions reading ``self`` state). It asks its owner (``_facts.ClassFlow``)
only read-only questions about the class: what a stored attribute, a helper or a function of
the package holds. One flow never changes another's state; a class is analysed by running
flows until what its attributes hold stops changing (``_facts``).
"""
from __future__ import annotations

import ast
import enum
import weakref
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Protocol, Tuple

from lint_rules.rules._vocab import (
    ACCESSORS,
    ACTIVE_POOL,
    ALLOCATING,
    ALLOCATOR,
    AWAITING,
    ALLOCATOR_POOL,
    BACKEND_ACCESSORS,
    CACHED_DECORATORS,
    CONTAINERS,
    CONTAINER_COPIERS,
    CONTEXT_ACCESSOR,
    CONTEXT_BACKEND,
    COUNTING,
    FILLERS,
    GATHERING,
    PARTIAL_PARTS,
    POOL_ACCESSORS,
    RECORD_COPIERS,
    RECORD_COPY_METHODS,
    REDUCERS,
    REFERENCES,
    SHARED_POOLS,
    SUBMITTING,
    TALLIES,
    TYPE_NAMES,
    TYPE_PROBES,
    is_flag_like,
    is_capacity,
    is_class_name,
    is_geometry,
    is_pool_type_name,
    is_flag_name,
    is_swa_word,
    reads_pool_state,
    per_layer_data,
    returns_pool_data,
)


class Taint(enum.Flag):
    """What a value carries; combine with ``|``, test with ``&``."""

    CLEAN = 0
    POOL = enum.auto()    # the active pool object itself
    SWA = enum.auto()     # state read off a pool (sub-pool, mapping, buffer, bound method)
    TYPE = enum.auto()    # a decision made by a type or duck test on a pool or allocator
    RUNNER = enum.auto()  # a runner-level SWA flag: the draft runner's config
    MIRROR = enum.auto()  # a test of the resolved pool attribute (``self._swa_kv_pool``)
    STALE = enum.auto()   # persisted: the per-forward pool swap does not update it
    RECORD = enum.auto()  # a container / closure / record around state: its shell is not state
    CHOICE = enum.auto()  # a non-boolean value picked by a pool decision ("swa" / "full")
    KIND = enum.auto()    # a type test of a pool against a class that is not SWA (MLA, MHA)
    GATED = enum.auto()   # made or picked under a decision on a stored stale flag
    OBJECT = enum.auto()  # an object built around state: its methods are bound to what it holds
    INNER = enum.auto()   # an inner backend keeping a pool of its own that a swap of ours misses
    SIZE = enum.auto()    # a pool's capacity (its slot count): arithmetic keeps it; a buffer
    # allocated with it is sized for that pool (the draft's 64-token pool is not the target's)
    PICKED = enum.auto()  # the pool as a non-SWA type test picked it (``pool if isinstance(pool,
    # PageInterleaveKVPoolMixin) else None``): a test of its presence is that test, not SWA's
    ALLOC = enum.auto()  # the pool allocator itself: the pool it hands out (``get_kvcache()``),
    # asked but not as a resolver's fallback, is the pool of that moment (a helper given it too)
    VERDICTS = enum.auto()  # a dict, list, tuple or set whose elements are SWA type-test
    # verdicts and nothing else (``{i: isinstance(p, SWAKVPool) for i, p in ...}``): a table of
    # SWA flags, KVP002's (its keys, a layer id or a ratio, are no element)

    # enum.Flag makes each result through a class call (three Python frames per operator);
    # the flow combines taints at nearly every node, so results come from a table instead
    def __or__(self, other):
        if type(other) is not Taint:
            return enum.Flag.__or__(self, other)
        value = self._value_ | other._value_
        found = _MEMBERS.get(value)
        return found if found is not None else _member(value)

    def __and__(self, other):
        if type(other) is not Taint:
            return enum.Flag.__and__(self, other)
        value = self._value_ & other._value_
        found = _MEMBERS.get(value)
        return found if found is not None else _member(value)

    def __invert__(self):
        return _member(_ALL_BITS & ~self._value_)

    def __bool__(self):  # (Flag's calls bool() on the value: a second call per test)
        return self._value_ != 0

    __ror__, __rand__ = __or__, __and__
    # one member per value (``_member``), so identity hashes as well as the name Enum hashes,
    # and in C: memo keys hold tuples of taints
    __hash__ = object.__hash__


_MEMBERS: Dict[int, Taint] = {}  # value -> the one Taint of that value


def _member(value: int) -> Taint:
    found = _MEMBERS.get(value)
    if found is None:
        found = _MEMBERS[value] = Taint(value)
    return found


_ALL_BITS = 0
for _flag in Taint:
    _ALL_BITS |= _flag._value_


def carries(value: Taint, mask: Taint) -> bool:
    """``bool(value & mask)`` on the members' ints: the flow's hottest tests (a Flag operator
    and its truth are two or three Python calls each)."""
    return value._value_ & mask._value_ != 0


CLEAN, POOL, SWA, TYPE = Taint.CLEAN, Taint.POOL, Taint.SWA, Taint.TYPE
ENTERING = ("enter_context", "enter_async_context")  # an ExitStack entering a manager
RUNNER, MIRROR, STALE, RECORD = Taint.RUNNER, Taint.MIRROR, Taint.STALE, Taint.RECORD
CHOICE, KIND, GATED, OBJECT = Taint.CHOICE, Taint.KIND, Taint.GATED, Taint.OBJECT
INNER, SIZE, PICKED, ALLOC = Taint.INNER, Taint.SIZE, Taint.PICKED, Taint.ALLOC
VERDICTS = Taint.VERDICTS
STATE = POOL | SWA
DECISION = TYPE | RUNNER | MIRROR | KIND
# What makes stored state a stale decision a later gate must not trust (a mirror of the
# resolved pool is not one: KVP004's business).
DECISIVE = TYPE | RUNNER | CHOICE | KIND | GATED
# Masks computed once (a Flag operation is a Python call: the flow runs them per node).
# what a container keeps (an object in a tuple stays an object: its type is not the pool's)
HELD = STATE | STALE | TYPE | KIND | RUNNER | CHOICE | GATED | INNER | OBJECT | PICKED
CONTAINED = STATE | RUNNER | CHOICE | GATED  # what makes a container more than a shell
TYPE_TESTS, DECIDERS, CHOOSERS = TYPE | KIND, TYPE | KIND | RUNNER, TYPE | KIND | CHOICE
PICKERS = TYPE | KIND | RUNNER | CHOICE  # what a lookup keyed by it picks by
FLAGGING = DECISION | CHOICE | GATED  # a stored value that makes a condition a gate
DECIDED, RUNNER_STALE, PICKED_BY = DECISION | STALE, RUNNER | STALE, STALE | KIND | RUNNER
UNDER_FLAG = GATED | RUNNER
STATE_SIZE = STATE | SIZE  # a read that is already the pool's state or its capacity
BUILT = RECORD | OBJECT | INNER  # a value built around state: its own type is not the pool's
# what makes a choice more than a pool type verdict: pool data or capacity, a built object, a
# non-SWA class test, the runner's flag, a stored flag it was made under, a flag it already is
VERDICT_EXCLUDED = STATE | SIZE | BUILT | KIND | RUNNER | GATED | TYPE
# what makes an element more than an SWA type-test verdict (``verdicts``)
NOT_VERDICTS = STATE | SIZE | BUILT | KIND | RUNNER | CHOICE | PICKED | ALLOC
# what makes an entry stored into a table more than a value an SWA type test picked (an enum
# member, "swa"): a choice made under a stored flag is what that flag made (as for
# ``is_chosen_verdict``)
NOT_CHOSEN = STATE | SIZE | BUILT | KIND | RUNNER | PICKED | ALLOC | GATED


# -- syntax helpers (shared with _facts, _fixes and the package index) -------------------------
def last_name(node: ast.AST) -> str:
    kind = type(node)  # (asked of nearly every call and attribute the flow meets)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        return node.attr
    return ""


def class_statements(statements) -> Iterable[ast.ClassDef]:
    """Every class statement at any depth: they sit only in statement lists (bodies, else and
    finally blocks, handlers, match cases), so expressions need no walking."""
    for statement in statements:
        kind = type(statement)
        if kind is ast.ClassDef:
            yield statement
        blocks = _BLOCKS.get(kind)
        if blocks is None:  # (most statements have none: one lookup instead of five getattr)
            blocks = _BLOCKS[kind] = tuple(b for b in _BLOCK_NAMES if b in kind._fields)
        for name in blocks:
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                yield from class_statements(inner)


_BLOCK_NAMES = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCKS: Dict[type, Tuple[str, ...]] = {}  # statement type -> which of those fields it has


def nodes_under(node: ast.AST) -> List[ast.AST]:
    """``node`` and every node below it, in no particular order: what ``ast.walk`` yields
    but the expression contexts (``_node_fields``), at a third of its cost (no generator per
    node), for the scans that only collect or count (they run over every method and every
    analysed module). A definition or module is walked once (several scans ask for each
    method and class); the caller gets its own list."""
    if type(node) in _WALKS_KEPT:
        found = _WALKS.get(node)
        if found is None:
            found = _WALKS[node] = _walk(node)[1:]
        return [node, *found]
    return _walk(node)


# definition or module -> its nodes but itself (the trees are never changed once parsed): a
# value holding its own key would keep the entry, and with it the whole tree, for the process
_WALKS: "weakref.WeakKeyDictionary[ast.AST, List[ast.AST]]" = weakref.WeakKeyDictionary()
_WALKS_KEPT = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module})


def class_nodes(cls_node: ast.ClassDef) -> List[ast.AST]:
    """The nodes ``nodes_under(cls_node)`` gives, in another order: those outside its functions,
    then each function's (their kept walks: the scans of each method made them already). For
    scans that need every node of a class in no order but a function's before those of the
    functions inside it."""
    found, functions = [cls_node], []
    for node in found:
        fields = _NODE_FIELDS.get(type(node))
        for field in fields if fields is not None else _node_fields(type(node)):
            value = getattr(node, field, None)
            for item in value if type(value) is list else (value,):
                if type(item) in _FUNCTIONS:
                    functions.append(item)
                elif isinstance(item, ast.AST):
                    found.append(item)
    for function in functions:
        found += nodes_under(function)
    return found


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def returns_nothing(function: ast.AST) -> bool:
    """Whether ``function`` can give its caller nothing but ``None``: no ``return`` with a
    value and no ``yield`` in its own body (those of its nested functions, lambdas and classes
    are theirs). Only a value returned or yielded makes what a flow of it returns
    (``MethodFlow.returned``), so a call of it returns CLEAN whatever it is handed."""
    found = _VOID.get(function)
    if found is None:
        found = _VOID[function] = not _gives_value(function)
    return found


def is_generator(function: ast.AST) -> bool:
    """Whether calling ``function`` makes a generator: a ``yield`` in its own body (those of
    the functions, lambdas and classes nested in it are theirs)."""
    found = _GENERATORS.get(function)
    if found is None:
        kinds = set(map(type, nodes_under(function)))
        found = _GENERATORS[function] = not kinds.isdisjoint((ast.Yield, ast.YieldFrom)) and any(
            type(node) in (ast.Yield, ast.YieldFrom) for node in _own_nodes(function.body))
    return found


_GENERATORS: "weakref.WeakKeyDictionary[ast.AST, bool]" = weakref.WeakKeyDictionary()


def _reads_pool(nodes: List[ast.AST], bound: set) -> bool:
    """Among ``nodes`` (one statement's or expression's), a read of ``<x>.token_to_kv_pool``
    (but of its geometry: ``pool.page_size``), or of a local in ``bound`` (bound so)."""
    geometry = {id(n.value) for n in nodes if type(n) is ast.Attribute and is_geometry(
        n.attr) and type(n.value) is ast.Attribute and n.value.attr == ACTIVE_POOL}
    return any(type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in bound or (
        type(n) is ast.Attribute and n.attr == ACTIVE_POOL and id(n) not in geometry)
        for n in nodes)


def pool_fill_methods(node: ast.ClassDef) -> frozenset:
    """The methods of a helper class that fill its own state, once, from the active pool they
    read (off the backend or runner the object holds): a store into the object (``self.x``,
    ``self.x[k]``, ``self[k]``) of what that read gives, under a test of that state (``if k
    not in self.x``, ``if self.x is None``), by ``setdefault``, or in ``__missing__`` (a dict's
    miss). Each later call answers from the first pool: kept by whoever keeps the object. A
    method that checks the pool against one it keeps (``is``), or keys the state by it, no."""
    found = _FILLS.get(node)
    if found is None:
        found = _FILLS[node] = frozenset(
            m.name for m in node.body if type(m) in _FUNCTIONS and _fills_from_pool(m))
    return found


_FILLS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()


def pool_reset_methods(node: ast.ClassDef) -> frozenset:
    """The methods of a helper class that empty its own state (``self.x = {}`` / ``None``,
    ``self.x.clear()``, ``self.clear()``), and ``clear`` (a dict's own): called every forward,
    what its fills keep lives one forward."""
    found = _RESETS.get(node)
    if found is None:
        found = _RESETS[node] = frozenset({"clear", *(
            m.name for m in node.body if type(m) in _FUNCTIONS and _empties_own(m))})
    return found


_RESETS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()


def _empties_own(method: ast.AST) -> bool:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional:
        return False
    me = positional[0].arg
    for n in nodes_under(method):
        if type(n) is ast.Assign and empty_value(n.value) and any(
                type(t) is ast.Attribute and _rooted_at(t, me) for t in n.targets):
            return True
        if type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr == "clear" \
                and _rooted_at(n.func.value, me):
            return True
    return False


def _fills_from_pool(method: ast.AST) -> bool:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional:
        return False
    me, nodes = positional[0].arg, nodes_under(method)
    pooled: set = set()
    for _ in range(2):  # (locals bound to the pool, then to what is read off them)
        for n in nodes:
            if type(n) in (ast.Assign, ast.AnnAssign, ast.NamedExpr) and n.value is not None \
                    and _reads_pool(nodes_under(n.value), pooled):
                targets = n.targets if type(n) is ast.Assign else [n.target]
                pooled.update(t.id for target in targets for t in nodes_under(target)
                              if type(t) is ast.Name and type(t.ctx) is ast.Store)
    if not pooled and not any(type(n) is ast.Attribute and n.attr == ACTIVE_POOL for n in nodes):
        return False
    for n in nodes:  # checked against a pool it keeps: refilled when the pool changes
        if type(n) is ast.Compare and any(type(op) in (ast.Is, ast.IsNot) for op in n.ops):
            sides = (n.left, *n.comparators)
            if any(_reads_pool(nodes_under(side), pooled) for side in sides) and any(
                    _rooted_at(side, me) for side in sides):
                return False
    guarded = {id(inner) for n in nodes if type(n) is ast.If and _tests_own_state(n.test, me)
               for statement in n.body for inner in nodes_under(statement)}
    for n in nodes:
        if type(n) is ast.Assign and _reads_pool(nodes_under(n.value), pooled) and any(
                _rooted_at(target, me) and not _keyed_by_pool(target, pooled)
                for target in n.targets) and (id(n) in guarded or method.name == "__missing__"):
            return True
        if type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr == "setdefault" \
                and len(n.args) == 2 and _rooted_at(n.func.value, me) and _reads_pool(
                    nodes_under(n.args[1]), pooled) and not _reads_pool(nodes_under(n.args[0]),
                                                                        pooled):
            return True
    return False


def _rooted_at(node: ast.AST, name: str) -> bool:
    """``node`` is ``name``, or an attribute or item of it at any depth."""
    while type(node) in _THROUGH:
        node = node.value
    return type(node) is ast.Name and node.id == name


def _keyed_by_pool(target: ast.AST, pooled: set) -> bool:
    """An item stored under a key naming the pool (``self.plans[id(pool)] = ...``)."""
    return type(target) is ast.Subscript and _reads_pool(nodes_under(target.slice), pooled)


def _tests_own_state(test: ast.AST, me: str) -> bool:
    """A test of the object's own state: a membership, identity or truth test of it."""
    for n in nodes_under(test):
        if type(n) is ast.Compare and any(type(op) in (ast.In, ast.NotIn, ast.Is, ast.IsNot)
                                          for op in n.ops):
            if any(_rooted_at(side, me) for side in (n.left, *n.comparators)):
                return True
        elif type(n) is ast.UnaryOp and type(n.op) is ast.Not and _rooted_at(n.operand, me):
            return True
    return False


def _gives_value(function: ast.AST) -> bool:
    nodes = nodes_under(function)  # (its kept walk: the scans of its class made it)
    kinds = list(map(type, nodes))
    present = set(kinds)
    if present.isdisjoint(_GIVING):
        return False
    nested = ast.Lambda in present or ast.ClassDef in present or kinds.count(
        ast.FunctionDef) + kinds.count(ast.AsyncFunctionDef) > 1
    if nested:  # (rare) only what is outside them is the function's own
        nodes = list(_own_nodes(function.body))
    return any(type(node) is not ast.Return or node.value is not None
               for node in nodes if type(node) in _GIVING)


def _own_nodes(statements: list) -> Iterator[ast.AST]:
    """The nodes of a function body outside the functions, lambdas and classes nested in it."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        yield node
        todo.extend(child for child in ast.iter_child_nodes(node)
                    if type(child) not in _SCOPES)


_GIVING = frozenset({ast.Return, ast.Yield, ast.YieldFrom})
_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# function node -> returns_nothing (the trees are never changed once parsed)
_VOID: "weakref.WeakKeyDictionary[ast.AST, bool]" = weakref.WeakKeyDictionary()


def _walk(node: ast.AST) -> List[ast.AST]:
    found = [node]
    for node in found:  # (a list grown while it is iterated is read to its new end)
        fields = _NODE_FIELDS.get(type(node))
        if fields is None:
            fields = _node_fields(type(node))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        found.append(item)
            elif isinstance(value, ast.AST):
                found.append(value)
    return found


# fields the parser fills with a name or a constant, never a node (a walk need not read them)
_LEAF_FIELDS = frozenset({(ast.Name, "id"), (ast.Attribute, "attr"), (ast.Constant, "value"),
                          (ast.Constant, "kind"), (ast.keyword, "arg"), (ast.arg, "arg")})
_NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}  # node type -> the fields that may hold nodes


def _node_fields(kind: type) -> Tuple[str, ...]:
    """Its fields but those holding a name or a constant, and ``ctx``: a ``Load``, ``Store`` or
    ``Del`` the parser shares between every expression (a third of the nodes of a module,
    which no scan asks for: the reads ask ``node.ctx`` of the expression itself)."""
    found = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if (kind, f) not in _LEAF_FIELDS
                                       and f != "ctx")
    return found


def _names_other_classes(node: ast.AST) -> bool:
    """Whether a type test's class operand names classes only, none of them a pool's or an
    allocator's (``SWAAttention``, ``(SWALayer, FullLayer)``): a name bound to a tuple of
    types, or any other expression, may hold a pool class and keeps the test a pool's."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_names_other_classes(el) for el in node.elts)
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = last_name(node)
        return name[:1].isupper() and not name.isupper() and not is_pool_type_name(name)
    return False


def is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def handed_name(func: ast.AST) -> Optional[str]:
    """``f`` or ``module.f``: how a call names a function it may hand ``self`` to (the key of
    that function among the class's methods)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def selves(args: list) -> Tuple[int, ...]:
    """The positions of the arguments that are ``self``."""
    return tuple(i for i, a in enumerate(args) if type(a) is ast.Name and a.id == "self")


def const_str(node: Optional[ast.AST]) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def attribute_alias(node: ast.AST) -> Optional[Tuple[ast.AST, str]]:
    """``(obj, name)`` for the attribute read ``node`` spells: ``obj.name``,
    ``getattr(obj, "name"[, default])``, ``obj.__dict__["name"]``, ``vars(obj)["name"]``,
    ``vars(obj).get("name"[, default])``, ``obj.__dict__.setdefault("name", default)``,
    ``attrgetter("name")(obj)``."""
    kind = type(node)
    if kind is ast.Attribute:
        return node.value, node.attr
    if kind is ast.Call:
        func, args = node.func, node.args
        called = last_name(func)
        if called == "getattr" and len(args) > 1 and const_str(args[1]) is not None:
            return args[0], const_str(args[1])
        if called in ("get", "setdefault") and args and const_str(args[0]) and \
                type(func) is ast.Attribute:  # vars(obj).get("name"), obj.__dict__.get(...),
            holder = namespace_of(func.value)  # obj.__dict__.setdefault("name", {})
            if holder is not None:
                return holder, const_str(args[0])
        path = getter_path(func) if type(func) is ast.Call else None
        if path is not None and len(args) == 1:
            read = _chain(args[0], path, node)
            return read.value, read.attr
    if kind is ast.Subscript and const_str(node.slice) is not None:
        holder = namespace_of(node.value)
        if holder is not None:
            return holder, const_str(node.slice)
    return None


def method_caller(node: ast.AST) -> Optional[ast.Call]:
    """``operator.methodcaller("name", *args, **kw)`` (its call node), which calls
    ``obj.name(*args, **kw)`` on the object it is given."""
    if isinstance(node, ast.Call) and last_name(node.func) == "methodcaller" and node.args:
        name = const_str(node.args[0])
        if name and name.isidentifier():
            return node
    return None


def called_method(caller: ast.Call, obj: ast.AST, at: ast.AST) -> ast.Call:
    """``obj.name(*args, **kw)``, placed at ``at``: what ``methodcaller(...)(obj)`` calls."""
    method = ast.copy_location(ast.Attribute(value=obj, attr=const_str(caller.args[0]),
                                             ctx=ast.Load()), at)
    return ast.copy_location(ast.Call(func=method, args=list(caller.args[1:]),
                                      keywords=list(caller.keywords)), at)


def getter_path(node: ast.AST) -> Optional[str]:
    """``"a.b"`` for ``operator.attrgetter("a.b")``."""
    if isinstance(node, ast.Call) and last_name(node.func) == "attrgetter" and len(node.args) == 1:
        path = const_str(node.args[0])
        if path and all(part.isidentifier() for part in path.split(".")):
            return path
    return None


def getter_paths(node: ast.AST) -> Optional[Tuple[str, ...]]:
    """``("a", "b.c")`` for ``operator.attrgetter("a", "b.c")``: several paths, read as a tuple."""
    if isinstance(node, ast.Call) and last_name(node.func) == "attrgetter" and len(node.args) > 1:
        paths = tuple(map(const_str, node.args))
        if all(p and all(part.isidentifier() for part in p.split(".")) for p in paths):
            return paths
    return None


def _chain(holder: ast.AST, path: str, at: ast.AST) -> ast.AST:
    """``holder.a.b`` as attribute nodes placed at ``at`` (what ``attrgetter("a.b")`` reads)."""
    for part in path.split("."):
        holder = ast.copy_location(ast.Attribute(value=holder, attr=part, ctx=ast.Load()), at)
    return holder


def namespace_of(node: ast.AST) -> Optional[ast.AST]:
    """``obj`` for ``obj.__dict__`` and ``vars(obj)``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if isinstance(node, ast.Call) and last_name(node.func) == "vars" and len(node.args) == 1:
        return node.args[0]
    return None


def name_pattern(node: ast.AST, strings: Optional[Dict[str, str]] = None) -> Optional[str]:
    """``"_*_window_map"`` for a name built at run time, ``f"_{mode}_window_map"`` (or
    ``"_" + mode + "_map"``): every name it may be, as a ``fnmatch`` pattern (a local in
    ``strings`` holds its constant); None when no part of it is spelled."""
    strings = strings or {}

    def part(value: ast.AST) -> str:
        if isinstance(value, ast.FormattedValue) and not value.format_spec and \
                value.conversion == -1:
            value = value.value
        if type(value) is ast.Name and value.id in strings:
            return strings[value.id]
        return const_str(value) or name_pattern(value, strings) or "*"

    if isinstance(node, ast.JoinedStr):
        parts = [part(v) for v in node.values]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [part(node.left), part(node.right)]
    else:
        return None
    pattern = "".join(str(p) for p in parts)
    while "**" in pattern:
        pattern = pattern.replace("**", "*")
    return pattern if pattern.strip("*") and pattern.replace("*", "_").isidentifier() else None


def constant_strings(node: ast.AST) -> tuple:
    """``("a", "b")`` / ``["a", "b"]``: the constant strings a display holds, all of them."""
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or not node.elts:
        return ()
    names = tuple(const_str(e) for e in node.elts)
    return names if all(names) else ()


# Deeper attribute chains hold no state a rule reads. Each read of a chain walks down to its
# base, and the visitor asks at every level: unbounded, a 2,900-deep ``pool.a.a...`` (as deep as
# CPython parses) took 2 s a line, quadratic in the depth.
MAX_SELF_PATH = 64


def self_path(node: ast.AST) -> Optional[str]:
    """``"a"`` for ``self.a`` (in any spelling of an attribute read), ``"a.b"`` for
    ``self.a.b``; None when ``node`` is not a read of ``self`` state."""
    kind = type(node)
    if kind is ast.Attribute:  # (the common spelling, without attribute_alias's tests)
        holder, name = node.value, node.attr
    elif kind is not ast.Call and kind is not ast.Subscript:
        return None  # (a name, a constant...: no spelling of an attribute read)
    else:
        alias = attribute_alias(node)
        if alias is None:
            return None
        holder, name = alias
    if type(holder) is ast.Name:  # (one level: the common case)
        return name if holder.id == "self" else None
    names = [name]
    while type(holder) is ast.Attribute:  # the levels above: plain attribute reads
        if len(names) == MAX_SELF_PATH:
            return None
        names.append(holder.attr)
        holder = holder.value
    if type(holder) is ast.Name and holder.id == "self":
        return ".".join(reversed(names))
    return None


def self_attr(node: ast.AST) -> Optional[str]:
    """``X`` for a one-level read of ``self.X`` (``getattr(self, "X"[, default])`` too)."""
    path = self_path(node)
    return path if path is not None and "." not in path else None


def swap_check_operands(node: ast.AST) -> Iterator[tuple]:
    """The operands of each ``x is [not] self.token_to_kv_pool`` under ``node``: a kept pool
    compared by identity with the live one notices the swap (KVP001 anchors, KVP003 decisions)."""
    for compare in class_nodes(node) if type(node) is ast.ClassDef else nodes_under(node):
        sides = swap_check_sides(compare) if type(compare) is ast.Compare else ()
        if sides:
            yield sides


def swap_check_sides(node: ast.AST) -> tuple:
    """The operands of ``node`` when it is ``x is [not] self.token_to_kv_pool``, else ()."""
    if isinstance(node, ast.Compare) and all(
            isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
        sides = (node.left, *node.comparators)
        if any(self_attr(side) == ACTIVE_POOL for side in sides):
            return sides
    return ()


def class_target(node: ast.AST, class_names: Iterable[str]) -> Optional[str]:
    """``x`` for a class attribute ``type(self).x``, ``self.__class__.x``, ``cls.x``,
    ``ClassName.x``: state every instance reads as ``self.x``."""
    if not isinstance(node, ast.Attribute):
        return None
    owner = node.value
    if isinstance(owner, ast.Name) and (owner.id == "cls" or owner.id in class_names):
        return node.attr
    if isinstance(owner, ast.Attribute) and owner.attr == "__class__" and is_self(owner.value):
        return node.attr
    if isinstance(owner, ast.Call) and last_name(owner.func) == "type" and len(owner.args) == 1:
        return node.attr if is_self(owner.args[0]) else None
    return None


_THROUGH = (ast.Attribute, ast.Subscript)
PLACED_NAME = "poolguard_qualified"  # on a name of a placed def: what its own module calls it
KWARG_READS = ("get", "pop", "setdefault")  # a keyword argument read out of ``**kwargs``
CONVERTING = ("int", "bool", "float")  # a value of the pool's data, spelled as a number


def _reached_runner(node: ast.AST) -> bool:
    """``get_forward_context().attn_backend.model_runner``: a runner reached through other
    objects (not a name of the method), whose pool is the runner's, not the swapped one."""
    return type(node) is ast.Attribute and node.attr.endswith("runner") and (
        type(node.value) is not ast.Name)


def _presence(node: ast.AST) -> Optional[ast.AST]:
    """What ``getattr(x, "<an SWA name>", None)`` asks about: ``x`` (a presence test when it is
    tested against None)."""
    if type(node) is not ast.Call or type(node.func) is not ast.Name or node.func.id != "getattr":
        return None
    args = node.args
    if len(args) != 3 or type(args[2]) is not ast.Constant or args[2].value is not None:
        return None
    return args[0] if is_swa_word(const_str(args[1]) or "") else None


def _root_name(node: ast.AST) -> str:
    """The name ``node`` is read off, when no step of the way is a runner (``inner`` for
    ``inner.config``; none for ``target.model_runner``)."""
    while type(node) is ast.Attribute:
        if node.attr.endswith("runner"):
            return ""
        node = node.value
    return node.id if type(node) is ast.Name else ""


def _defaulted(args: ast.arguments) -> List[Tuple[ast.arg, Optional[ast.expr]]]:
    """``(parameter, its default)`` for every parameter that may have one (a keyword-only
    one without a default pairs with None)."""
    positional = [*args.posonlyargs, *args.args]
    return [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
            *zip(args.kwonlyargs, args.kw_defaults)]


def _class_defaults(function: ast.AST) -> Dict[str, ast.AST]:
    """Parameters defaulting to a class (``inner_cls=WindowedDecodeBackend``): calling one
    builds that class, unless the caller hands another."""
    args = getattr(function, "args", None)
    if args is None or not (args.defaults or args.kw_defaults):
        return {}
    return {a.arg: d for a, d in _defaulted(args) if type(d) in (ast.Name, ast.Attribute)
            and _is_class_name(d)}


def _typed_otherwise(function: ast.AST) -> frozenset:
    """Parameters annotated with a class that is no runner (``inner: "CleanBackend"``,
    ``layer: RadixAttention``): not the runner whatever their name."""
    args = getattr(function, "args", None)
    if args is None:
        return frozenset()
    typed = set()
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        note = arg.annotation
        if type(note) is ast.Constant and type(note.value) is str:
            name = note.value.strip().rpartition(".")[2]
        elif type(note) in (ast.Name, ast.Attribute):
            name = last_name(note)
        else:
            continue
        if name and name[0].isupper() and not name.endswith(("Runner", "Any")):
            typed.add(arg.arg)
    return frozenset(typed)


def params_of(function: ast.AST) -> List[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return [a.arg for a in every if a is not None and a.arg not in ("self", "cls")]


def container(value: Taint) -> Taint:
    """What a container, closure, record or bound partial holding ``value`` holds: its state,
    and the decisions inside it (``{"swa": isinstance(...)}``), which an element read gives
    back (``element``); the ``RECORD`` shell itself is neither."""
    held = value & HELD
    if carries(value, TYPE_TESTS):
        held |= SWA
    return held | RECORD if carries(held, CONTAINED) else CLEAN


def holding(held: Taint, keys: Taint = CLEAN) -> Taint:
    """A dict, list, tuple or set built of elements holding ``held`` (their union; ``keys``:
    what its keys or what it iterated hold, no element of it): ``container``, marked
    ``VERDICTS`` when every element is an SWA type-test verdict and nothing else (no pool data
    nor capacity, no object, no other kind of decision: a non-SWA class test, the runner's
    flag, a value a test picked)."""
    value = container(keys | held)
    if carries(held, TYPE) and not carries(held, NOT_VERDICTS):
        return value | VERDICTS
    return value


def element(value: Taint) -> Taint:
    """An element of a container (``kinds["swa"]``, ``kinds.get("swa")``, a loop variable):
    the state and the decisions it holds."""
    return value & HELD


def keyed_by_pool(arguments: Iterable[Taint]) -> bool:
    """A memo (a ``functools.cache``d function, a dict, an identity check) keyed by these is
    keyed by the live pool (the backend's or the batch's, read per forward; a local bound to
    it, a parameter its callers feed it to): each pool the swap hands in gets its own entry."""
    return any(v & POOL and not v & (STALE | RECORD) for v in arguments)


def sized(value: Taint) -> Taint:
    """What a number computed from ``value`` holds: the pool capacity it carries, if any."""
    return SIZE | (value & STALE) if carries(value, SIZE) else CLEAN


def encoded(value: Taint) -> Taint:
    """A number or string computed from a pool decision (``int(isinstance(pool, SWAKVPool)) *
    SWA_BIT``, ``f"{type(pool).__qualname__}"``): the decision, spelled as a value."""
    if not carries(value, PICKERS) or carries(value, RECORD):
        return CLEAN
    return CHOICE | (value & PICKED_BY)


def union(values: Iterable[Taint]) -> Taint:
    result = CLEAN
    for value in values:
        if value is not CLEAN and value is not result:
            result |= value
    return result


def is_type_probe(node: ast.AST) -> bool:
    """``type(x)``, ``x.__class__``, ``type(x).__name__``, ``x.__class__.__name__.lower()``."""
    while True:
        if isinstance(node, ast.Call):
            if last_name(node.func) == "type" and len(node.args) == 1:
                return True
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr in TYPE_PROBES:
                return True
            node = node.value
        else:
            return False


def is_flag_read(test: Optional[ast.AST]) -> bool:
    """``self.flag`` / ``not self.flag``: a condition that only reads stored state."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return test is not None and self_path(test) is not None


MODULE_MEMO = "global "  # how a memo the module keeps is named (``MethodFlow.memo_holder``)


def guarded_attr(test: ast.AST, held: Callable[[ast.AST], str]) -> Optional[str]:
    """``x`` in ``if self.x is None`` / ``if not self.x`` / ``if not hasattr(self, "x")``
    (``type(self).x``, ``cls.x``, a module global: whatever ``held`` names): the attribute a
    lazily filling block tests; joined with others by ``and`` / ``or`` (``self.x is None and
    hasattr(pool, ...)``), the first such test among them."""
    if type(test) is ast.BoolOp:
        return next(filter(None, (guarded_attr(part, held) for part in test.values)), None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
        if isinstance(test, ast.Call) and last_name(test.func) == "hasattr" and len(test.args) == 2:
            return const_str(test.args[1]) if is_self(test.args[0]) else None
    if isinstance(test, ast.Compare) and len(test.comparators) == 1:
        test = test.left
    if isinstance(test, ast.NamedExpr):  # (x := self.x) is None: the walrus tests self.x
        test = test.value
    return held(test) or None


def memo_key(test: ast.AST,
             held: Callable[[ast.AST], str]) -> Optional[Tuple[str, ast.AST, bool]]:
    """``(attr, key, refills)`` for a test of what ``self.<attr>`` (or whatever else ``held``
    names: ``MethodFlow.memo_holder``) memoises against a key: ``self.k is not key`` /
    ``key != self.k`` (in either order), ``key not in self.m``, ``self.m.get(key) is None``;
    ``refills``: the body fills it (for ``is`` / ``==`` / ``in`` the else-branch does)."""
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        return (held(right), left, isinstance(op, ast.NotIn)) if held(right) else None
    if not isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        return None
    refills = isinstance(op, (ast.IsNot, ast.NotEq))
    if _is_none(right) and isinstance(left, ast.Call) and last_name(left.func) == "get" and \
            isinstance(left.func, ast.Attribute) and left.args and held(left.func.value):
        return held(left.func.value), left.args[0], not refills  # .get(key) is None: fill
    if isinstance(left, ast.Constant) or isinstance(right, ast.Constant):
        return None
    if held(left):
        return held(left), right, refills
    return (held(right), left, refills) if held(right) else None


def _slot_test(test: ast.AST) -> bool:
    """``self.k is not key`` / ``key == self.k``: a slot holding one key's value (not a dict
    holding one entry per key: ``key in m``, ``m.get(key) is None``)."""
    if type(test) is not ast.Compare:
        return False
    return type(test.ops[0]) in _SLOT_OPS and not _is_none(test.comparators[0])


_SLOT_OPS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)


# -- what a flow records -----------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """An object of a class of the module or package, built here (``Helper(pool)``), as the
    class building it sees it: what each of its attributes holds (``fields``), what it keeps
    past the call as a whole (``held``), whether its constructor hands an argument on where
    the analysis does not follow (``loose``: then it may hold whatever it was given), and
    whether its methods are bound to what it holds (``bound``: a helper, not an inner backend,
    whose other state is its own class's finding)."""

    fields: Dict[str, Taint]
    held: Taint
    loose: bool
    bound: bool = True
    entered: Optional[Taint] = None  # what its ``__enter__`` returns (None: it has none)


@dataclass(frozen=True)
class StoreEvent:
    """A sink candidate: ``attr`` (``a``, ``a.b``, a class attribute, a module global or a
    cached function) assigned ``taint``; ``scope`` is ``self``, ``class``, ``module``,
    ``cache`` or ``field`` (what a field of a stored record holds: a fact, never a finding)."""

    attr: str
    node: ast.AST
    statement: Optional[ast.stmt]
    value: Optional[ast.AST]
    taint: Taint
    alone: bool
    lazy: bool  # filled under a test of the same attribute (a lazy fill in per-forward code)
    scope: str = "self"
    memo: str = ""  # the attribute whose test makes it lazy (it or a memo's key)
    under: Taint = Taint.CLEAN  # what the decisions around the store decided


@dataclass(frozen=True)
class GateEvent:
    """A decision reading ``self`` state: ``kind`` ``attr`` (the whole condition or a ``not``
    / ``and`` / ``or`` operand: ``target`` may be rewritten), ``read`` (inside a larger
    expression), ``alias`` (a local bound to it) or ``call`` (a ``self.<helper>()``)."""

    name: str
    node: ast.AST
    target: ast.AST
    negated: bool
    kind: str
    bits: Taint = Taint.CLEAN  # for a ``call``: what the helper returns given these arguments
    use: str = "other"  # "whole"/"truth": the value itself tested; "element": indexed, searched;
    # "present": whether it was ever set (hasattr(self, "x"))


class FlowOwner(Protocol):
    """What a method's flow asks of its class (``_facts.ClassFlow``): read-only queries."""

    pool_attr: str
    class_names: frozenset
    class_name: str

    def is_per_forward(self, name: str) -> bool: ...

    def is_resolver(self, name: str) -> bool: ...

    def keeps_result(self, name: str) -> bool: ...

    def attr_value(self, path: str) -> Taint: ...

    def global_value(self, name: str) -> Taint: ...

    def imported_global(self, module: str, name: str) -> Optional[str]: ...

    def module_global(self, module: str, name: str) -> Optional[str]: ...

    def method_returns(self, name: str, arguments: Tuple[Taint, ...],
                       given_self: Tuple[int, ...] = (), bound: bool = True) -> Taint: ...

    def override_returns(self, name: str, arguments: Tuple[Taint, ...]) -> Taint: ...

    def function_returns(self, func: ast.AST, arguments: Tuple[Taint, ...],
                         follow: bool = True, keywords: tuple = (),
                         given_self: Tuple[int, ...] = ()) -> Optional[Taint]: ...

    def callee_def(self, func: ast.AST) -> Optional[ast.AST]: ...

    def held_method(self, attr: str, name: str) -> Optional[ast.AST]: ...

    def function_param_stores(self, func: ast.AST, arguments: Tuple[Taint, ...],
                              keywords: tuple = (), given_self: Tuple[int, ...] = ()
                              ) -> list: ...

    def method_fields(self, name: str, arguments: Tuple[Taint, ...],
                      given_self: Tuple[int, ...] = (), bound: bool = True
                      ) -> Dict[str, Taint]: ...

    def function_fields(self, func: ast.AST, arguments: Tuple[Taint, ...],
                        keywords: tuple = (), given_self: Tuple[int, ...] = ()
                        ) -> Dict[str, Taint]: ...

    def function_globals(self, func: ast.AST, arguments: Tuple[Taint, ...],
                         keywords: tuple = (), given_self: Tuple[int, ...] = ()) -> list: ...

    def function_gates(self, func: ast.AST, arguments: Tuple[Taint, ...],
                       keywords: tuple = (), given_self: Tuple[int, ...] = ()
                       ) -> List["GateEvent"]: ...

    def is_cached_function(self, func: ast.AST) -> bool: ...

    def is_record_type(self, func: ast.AST) -> bool: ...

    def record_fields(self, func: ast.AST) -> Tuple[str, ...]: ...

    def constructed(self, func: ast.AST, arguments: Tuple[Taint, ...],
                    keywords: Tuple[Tuple[str, Taint], ...],
                    site: Optional[ast.AST] = None) -> Optional["Built"]: ...

    def type_names_swa(self, node: ast.AST) -> bool: ...

    def is_module_global(self, name: str) -> bool: ...

    def placed_global(self, qualified: str) -> Optional[str]: ...

    def getter(self, func: ast.AST) -> Optional[str]: ...

    def caller(self, func: ast.AST) -> Optional[ast.Call]: ...

    def bound_call(self, name: str) -> Optional[Tuple[ast.expr, bool]]: ...

    def class_bound_call(self, attr: str) -> Optional[ast.expr]: ...

    def function_table(self, iterated: ast.AST) -> Optional[Tuple[str, list]]: ...

    def makes_generator(self, func: ast.AST) -> bool: ...

    def held_list(self, attr: str) -> Optional[list]: ...

    def note_call(self, name: str, arguments: tuple, keywords: dict) -> None: ...

    def base_keeps(self, arguments: tuple, keywords: tuple,
                   method: str = "__init__") -> List[Tuple[str, Taint]]: ...

    def called_object(self, klass: str, attr: str = "__call__") -> Optional[Tuple[str, bool]]: ...

    def made_by(self, name: str, scope: str) -> Optional[str]: ...

    def fills_from_pool(self, klass: str, method: str, attr: str) -> bool: ...

    def handed_keeps(self, klass: str, method: str, arguments: Tuple[Taint, ...],
                     keywords: Tuple[Tuple[str, Taint], ...]) -> Taint: ...

    def runner_attr(self, attr: str) -> Taint: ...

    def holds_backend(self, attr: str) -> bool: ...

    def backs_onto(self, attr: str) -> bool: ...

    def holds_runner(self, attr: str) -> bool: ...

    def is_runner_flag(self, name: str) -> bool: ...

    def module_strings(self, name: str) -> tuple: ...

    def class_string(self, name: str) -> Optional[str]: ...

    def is_module_class(self, name: str) -> bool: ...

    def is_live_view(self, name: str) -> bool: ...

    def is_module_object(self, name: str) -> bool: ...

    def is_imported(self, name: str) -> bool: ...

    def keyed_dict(self, attr: str) -> bool: ...

    def is_descriptor(self, func: ast.AST) -> bool: ...


# -- the flow ----------------------------------------------------------------------------------
_AS_IT_IS = nullcontext()  # a block run as it is (``MethodFlow.memoising``)


class MethodFlow(ast.NodeVisitor):
    """Forward taint over one function body, in statement order.

    ``record`` is False for a summary evaluation (a helper called with given argument taints):
    it computes ``returned`` and records nothing. ``deferred`` marks a closure body, run when
    called: ``self.token_to_kv_pool`` is read then, and its stores are not made now. ``klass``
    is the class a factory classmethod builds when it calls ``cls(...)``.
    """

    def __init__(self, owner: FlowOwner, function: ast.AST, name: str, *,
                 env: Optional[Dict[str, Taint]] = None, deferred: bool = False,
                 record: bool = True, runners: Optional[set] = None, klass: str = "",
                 calling: frozenset = frozenset()) -> None:
        self.owner, self.name, self.klass = owner, name, klass
        self.statements = getattr(function, "body", ())  # (a latch set later in it: latch_of)
        self._method_stores: Optional[set] = None  # (method_stores)
        self.per_forward = owner.is_per_forward(name)
        # a cached method or property keeps its first answer: the pool it reads is that
        # moment's, stale as any kept (a decision on it picks what stays)
        self.kept = owner.keeps_result(name)
        self.resolver = owner.is_resolver(name)
        params = params_of(function) if not isinstance(function, ast.Module) else []
        # in a construction-time method any parameter may be the runner
        self.runners = set(runners) if runners is not None else {
            p for p in params if p.endswith("runner") or not self.per_forward
        }
        self.params = tuple(params)  # (their positions: what a store on one hands the caller)
        kwarg = getattr(getattr(function, "args", None), "kwarg", None)
        self.kwarg = kwarg.arg if kwarg is not None else None  # **kwargs: what callers named
        self.class_params = _class_defaults(function)  # parameter -> the class it defaults to
        # but a flag of one its annotation says is something else is no runner flag
        # (``inner: "FlashInferAttnBackend"``: ``inner.has_sliding_window`` is its own)
        self.typed = _typed_otherwise(function) if self.runners else frozenset()
        self.deferred, self.record = deferred, record
        self.env: Dict[str, Taint] = dict(env or {})
        self.calling = calling  # local functions being evaluated (a recursion guard)
        self._start_locals()
        self._start_results()
        self._start_decisions()

    def _start_locals(self) -> None:
        """What the body's locals are known to hold beside their taint (``env``)."""
        self.aliases: Dict[str, Tuple[tuple, ...]] = {}  # local -> (self read, name) it holds
        self.elements: Dict[str, Tuple[tuple, ...]] = {}  # local -> (self read, name) it holds
        # an element of (entry = self.layers[lid]; _, windowed = self.layers.get(lid))
        self.allocators: set = set()
        self.type_locals: Dict[str, bool] = {}  # local -> bound to SWA class names?
        self.getters: Dict[str, str] = {}  # local -> the path of the attrgetter it holds
        self.tuple_getters: Dict[str, Tuple[str, ...]] = {}  # local -> an attrgetter's paths
        # type test -> (the local class it names, what its subject holds): ``narrowed``
        self.narrowing: Dict[int, Tuple[str, Taint]] = {}
        self.siblings: Dict[str, tuple] = {}  # loop variable -> the names its target binds
        self.callers: Dict[str, ast.Call] = {}  # local -> the methodcaller it holds
        self.namespaces: Dict[str, ast.AST] = {}  # local -> the object whose vars() it holds
        # local -> the state of ours it is bound to (memo = self.memos, m = vars(self).setdefault(
        # "m", {})): filling or testing the local fills or tests that state
        self.held: Dict[str, ast.AST] = {}
        # local -> the lookup of a memo of ours it holds (view = self.views.get(layer_id)): a
        # test of it is that lookup's (``view is None``: the memo lacks the key)
        self.looked_up: Dict[str, ast.Call] = {}
        self.fresh: set = set()  # locals bound to the runner or the active pool, read then
        self.strings: Dict[str, str] = {}  # local -> the constant string it holds (a name)
        self.fields: Dict[int, Dict[str, Taint]] = {}  # record built here -> its fields' taints
        self.entries: Dict[int, dict] = {}  # dict literal -> key -> (value node, its taint)
        self.entering: Dict[int, Taint] = {}  # context manager built here -> its __enter__'s
        self.record_locals: Dict[str, Dict[str, Taint]] = {}  # local -> fields of its record
        self.keyed: Dict[str, Dict[str, Taint]] = {}  # local -> what each key of its dict holds
        self.inner_locals: Dict[str, str] = {}  # local -> the self.<x> inner backends it is one of
        # local -> (the self path of the record it copies, the fields the copy replaced)
        self.copies: Dict[str, Tuple[str, frozenset]] = {}
        self.local_defs: Dict[str, ast.AST] = {}  # local name -> its nested def or lambda
        self.local_results: Dict[tuple, Taint] = {}  # (def, argument taints) -> what it returns
        self.walrus: Optional[set] = None  # names a comprehension's walrus binds outside it
        self.instances: set = set()  # locals holding an instance of this class (cls(...))
        self.made_by: Dict[str, str] = {}  # local -> the name called to make it (Probe())
        self.unpacked: set = set()  # locals bound to an element unpacked from a container

    def _start_results(self) -> None:
        """What the body makes: its stores, gates and return, and the globals it sets."""
        self.globals: set = set()
        self.set_globals: Dict[str, Taint] = {}  # module globals it assigns -> what they hold
        self.global_stores: List[StoreEvent] = []  # each of those stores (made where it stands)
        # (position, path, taint) of each store on an object a parameter holds (meta.enabled =
        # ...): the caller's store on what it handed there (prime(self.meta, pool))
        self.param_stores: List[Tuple[int, str, Taint]] = []
        self.returned = CLEAN
        self.returned_fields: Dict[str, Taint] = {}  # fields of the record it returns
        self.used = CLEAN  # a closure body's calls on captured state: what it keeps using
        self.stores: List[StoreEvent] = []
        self.gates: Dict[int, GateEvent] = {}
        self.runner_reads: List[ast.Attribute] = []
        self.closures: List["MethodFlow"] = []  # nested flows whose gates belong to this method

    def _start_decisions(self) -> None:
        """The decisions, tries and memo refills enclosing the statement being visited."""
        self.control: List[Taint] = [CLEAN]  # what the enclosing decisions decided, cumulated
        self.tries: List[list] = []  # open ``try`` bodies: what they have read so far
        self.guards: Dict[str, int] = {}  # self paths tested by enclosing ifs (lazy fills)
        # enclosing blocks that refill a memo when the live pool changes (its stores are
        # fresh) / when a key the swap does not change does (every store there is kept)
        self.refreshing, self.filling = 0, []  # (filling: the memos' attributes)
        self.class_keys: set = set()  # locals bound to a class of something (``type(pool)``)
        self.pool_ids: set = set()  # locals bound to id() of the live pool (or the pool of the
        # batch itself): a memo key
        self.uses: Dict[int, str] = {}  # node id -> how a decision tests it (``GateEvent.use``)
        # locals bound to what a self.<m>(...) call returned, or to kept state read out of self
        # (sub = self.pools.get("swa")): a test of the local is a decision on that state
        self.method_locals: set = set()
        # calls of a function handing out kept state of its own (``mapping = state.mapping()``:
        # a module global the class set, no argument stale): a local bound to one is as above
        self.kept_calls: set = set()
        # locals bound to a test of kept state (swa = self.layout is Layout.SWA): the first
        # decision testing the local is that test (reported there)
        self.tests: Dict[str, ast.AST] = {}
        self.gate_at: Optional[ast.AST] = None
        self.pool_tests = 0  # enclosing ifs testing the type of self.token_to_kv_pool itself
        self.pool_locals: set = set()  # locals bound to it (live = self.token_to_kv_pool)
        self.runner_calls: set = set()  # calls handing the runner to a reader of its pool
        self.rebound: set = set()  # parameters bound anew in the body
        self.deciding = 0  # > 0 while a condition is evaluated
        self.read_flag = False  # the condition being evaluated read a stored flag
        self.defaulted = ""  # the name a getattr with a default is reading
        self.suppressing = 0  # > 0 in a ``with suppress(...)`` block: a read that raises ends it
        self.alone = False
        self.rebinding: set = set()  # module globals whose bound call is being followed
        self.table_calls: Dict[str, ast.expr] = {}  # loop variable -> the table function it holds
        self.frames: Dict[int, Taint] = {}  # call node id -> what the generator it makes keeps

    def visit(self, node: ast.AST):
        """``NodeVisitor.visit``, its method looked up once per node type (it builds the
        name ``visit_<type>`` at every node, and the flow visits every node of every method)."""
        method = _VISITORS.get(node.__class__)
        if method is None:
            method = _VISITORS[node.__class__] = getattr(
                MethodFlow, "visit_" + node.__class__.__name__, MethodFlow.generic_visit)
        return method(self, node)

    def run(self, statements: Iterable[ast.stmt]) -> "MethodFlow":
        statements = list(statements)
        for statement in statements:
            self.alone = len(statements) == 1  # a store alone in its block: a fix needs `pass`
            self.visit(statement)
        return self

    def generic_visit(self, node: ast.AST) -> Taint:
        """Unknown nodes: their parts are still visited (walrus bindings, gates, runner reads),
        but their value holds nothing (arithmetic on pool data gives numbers, not state)."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr, ast.stmt)):
                self.visit(child)
        return CLEAN

    def visit_Constant(self, node: ast.Constant) -> Taint:
        return CLEAN  # (NodeVisitor's own visit_Constant is a slow shim for old node types)

    # -- sources ------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> Taint:
        if self.deciding and node.id in self.aliases:
            for read, name in self.aliases[node.id]:
                self.gate(read, read, False, "alias", name=name,  # at the decision (a held
                          at=self.gate_at or node)  # test's: where the local holding it is)
            if self.env.get(node.id, CLEAN) & FLAGGING:
                self.read_flag = True  # a local bound to a stored flag decides as the flag
        if self.deciding and node.id in self.elements:
            for read, name in self.elements[node.id]:  # a decision on what the local holds
                self.uses[id(read if self.gate_at is not None else node)] = "element"  # is
                self.gate(read, read, False, "alias", name=name,  # one on an element of the
                          at=self.gate_at or node)  # kept container
        if node.id in self.env:
            return self.env[node.id]
        return self.global_read(node, self.placed_global(node) or node.id)

    def placed_global(self, node: ast.Name) -> Optional[str]:
        """A global of another module's helper placed here (``placed_at``), as the index names
        it: the table it fills is that module's, whoever reads it."""
        named = getattr(node, PLACED_NAME, None)
        return self.owner.placed_global(named) if named is not None else None

    def global_read(self, node: ast.AST, name: str, shown: str = "") -> Taint:
        """A module global the class stored (``global NAME``, ``_FLAGS[...]``, ``globals()``):
        persisted, and a decision reading it is a gate on it (named ``shown``: as spelled)."""
        if name in self.set_globals:  # set earlier in this call: what it was set to
            return self.set_globals[name]
        value = self.owner.global_value(name)
        if not self.deciding or value is CLEAN:
            return value
        if value & STALE and untrusted(value):
            self.gate(node, node, False, "global", value, name=shown or name)
            self.read_flag = True
        elif value & STATE:  # kept pool state: rules judge the use
            self.gate(node, node, False, "global", value, name=shown or name)
        return value

    def visit_Attribute(self, node: ast.Attribute) -> Taint:
        if node.attr == ALLOCATOR:  # (whatever holds it: what it hands out is asked of it)
            return self.attribute(node, node.value, node.attr) | ALLOC
        return self.attribute(node, node.value, node.attr)

    def named_read(self, node: ast.Call) -> Optional[Tuple[ast.AST, str]]:
        """``getattr(obj, name)`` where the local ``name`` holds a constant string."""
        args, func = node.args, node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and len(args) > 1:
            name = self.spelled(args[1])
            return (args[0], name) if name else None
        return None

    def spelled(self, node: ast.AST) -> Optional[str]:
        """The attribute name ``node`` gives getattr / setattr: a constant, a local holding
        one, a name built at run time (``f"_{mode}_map"``: its pattern), or a constant string
        of the class (``getattr(self, self.FLAG_ATTR)``, ``cls.FLAG_ATTR``)."""
        kind = type(node)
        if kind is ast.Name:
            return self.strings.get(node.id)
        if kind is ast.Attribute and (is_self(node.value) or names_own_class(node.value) or
                                      last_name(node.value) in self.owner.class_names):
            return self.owner.class_string(node.attr)
        return const_str(node) or name_pattern(node, self.strings)

    def attribute(self, node: ast.AST, holder: ast.AST, name: str) -> Taint:
        """A read of ``holder.name`` in any spelling; ``node`` is what it is reported at."""
        if name == ACTIVE_POOL and self.is_runner(holder):
            self.visit(holder)
            if self.per_forward and self.record and not self.deferred and not self.resolver:
                if self_path(holder) is not None or _reached_runner(holder):
                    self.runner_reads.append(node)  # self.model_runner.token_to_kv_pool
            return self.source(POOL | STALE)
        if name == ACTIVE_POOL and _current_backend(holder):  # get_attn_backend().token_...
            self.visit(holder)
            return self.current_pool()
        if self.is_runner(holder) and self.owner.is_runner_flag(name) and \
                not _through_pool(holder) and _root_name(holder) not in self.typed:
            # (the cheap tests first: is_runner_flag asks the module's use)
            self.visit(holder)
            return RUNNER | STALE
        if self.is_runner_itself(holder):
            built = self.owner.runner_attr(name)  # model_runner.kv_index_translator
            if built:
                self.visit(holder)
                return self.source(built)
        inner = self.inner_of(holder) if is_flag_name(name) else None
        if inner is not None:  # backend = self.backends[0]; backend.use_sliding_window_kv_pool
            return self.self_read(f"{inner}.{name}", node, holder, name)
        copied = self.copies.get(holder.id) if type(holder) is ast.Name else None
        if copied is not None and name not in copied[1]:  # md = replace(self.meta, ...)
            return self.self_read(f"{copied[0]}.{name}", node, holder, name)
        path = self_path(node)
        if path is None:
            path = self.other_self_read(node, holder, name) or self.held_path(node)
        if path is not None:
            return self.self_read(path, node, holder, name)
        held = self.module_object(holder) if type(holder) is ast.Name and \
            holder.id not in self.env else None
        if held is not None and (f"{held}.{name}" in self.set_globals or self.owner.global_value(
                f"{held}.{name}")):
            return self.global_read(node, f"{held}.{name}")  # _TLS.windowed, set by the class
        imported = self.owner.imported_global(holder.id, name) if type(
            holder) is ast.Name and holder.id not in self.env else None
        if imported is not None:  # state.WINDOWED, set by state.install(pool) called here
            return self.global_read(node, imported, f"{holder.id}.{name}")
        root = self.kept_root(holder) if held is None and type(holder) in (
            ast.Name, ast.Attribute) else None
        if root is not None and (f"{root}.{name}" in self.set_globals or self.owner.global_value(
                f"{root}.{name}")):
            return self.global_read(node, f"{root}.{name}")  # state._STATE.is_swa, set here
        base = self.visit(holder)
        if self.defaulted or self.suppressing:
            return self.read_off(base, name)
        value = self.source(self.derived(self.probed(base, name), name))
        if name == ACTIVE_POOL and not self.deferred and self.batch_pool(node):
            return value | POOL  # forward_batch.token_to_kv_pool: the pool of this very call,
            # live as self.token_to_kv_pool read per forward (a memo keyed by it is refilled)
        return value

    def inner_of(self, node: ast.AST) -> Optional[str]:
        """``x`` when ``node`` is one of the inner backends ``self.<x>`` holds: ``self.x``,
        ``self.x[i]``, ``self.x.get(k)``, a local or loop variable bound to one of those."""
        kind = type(node)
        if kind is ast.Name:
            return self.inner_locals.get(node.id)
        if kind is ast.Subscript:
            return self.inner_of(node.value)
        if kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr in ACCESSORS:
            return self.inner_of(node.func.value)  # self.backends.get("swa"), .values()
        if kind is ast.Call and last_name(node.func) in ("list", "tuple", "iter") and node.args:
            return self.inner_of(node.args[0])
        attr = self_attr(node)
        return attr if attr is not None and self.owner.holds_backend(attr) else None

    def other_self_read(self, node: ast.AST, holder: ast.AST, name: str) -> Optional[str]:
        """``name`` for a read of ``self`` state no ``self_path`` spells: ``getattr(self, n)``
        with ``n`` a constant local, a class attribute (``cls.x``, ``type(self).x``)."""
        kind = type(holder)
        if kind is ast.Name:
            if holder.id == "self":
                return name
            if holder.id == "cls" or holder.id in self.owner.class_names:
                return class_target(node, self.owner.class_names)
        elif kind is ast.Call or kind is ast.Attribute and holder.attr == "__class__":
            return class_target(node, self.owner.class_names)
        return None

    def self_read(self, path: str, node: ast.AST, holder: ast.AST, name: str) -> Taint:
        if self.deciding:
            self.gate(node, node, False, "read", name=path)
        if path == ACTIVE_POOL or path[-_HELD_TAIL:] == _HELD_POOL and _backed_pool(
                path, self.owner):  # (a helper's self.backend.token_to_kv_pool: the same)
            return CLEAN if self.deferred else (POOL | STALE if self.kept else POOL)  # (a try
            # around it decides by what is read off it: a probe of an SWA name, its state)
        stored = self.owner.attr_value(path)
        if self.deferred and not stored & STALE and self.owner.is_live_view(path):
            return CLEAN  # a closure reading a property over the live pool reads it when called
        if self.deciding and stored & FLAGGING:
            self.read_flag = True  # the decision reads a stored flag: the gate is the finding
        if stored is not CLEAN or "." not in path:
            return self.source(stored)
        deciding, self.deciding = self.deciding, 0  # the gate is on the path, not its holder
        try:
            base = self.visit(holder)
            if self.defaulted or self.suppressing:
                return self.read_off(base, name)
            return self.source(self.derived(self.probed(base, name), name))
        finally:
            self.deciding = deciding

    def read_off(self, base: Taint, name: str) -> Taint:
        """``holder.name`` given what ``holder`` holds. Read with a default (``getattr(pool,
        "swa_layer_nums", 0)``) or where raising only ends a ``suppress`` block, an SWA-only name
        off the pool is a duck test too: the pool's value or the default, picked by what the
        pool is."""
        value = self.derived(self.probed(base, name), name)
        probe = self.defaulted == name or self.suppressing  # (suppress: a read that raises)
        if probe and base & POOL and not base & BUILT and not value & STATE_SIZE and \
                is_swa_word(name) and not is_geometry(name):
            value |= CHOICE | (base & STALE)
        return self.source(value)

    def probed(self, base: Taint, name: str) -> Taint:
        """``try: pool.swa_layer_nums`` (an SWA-only name off the pool, whatever it holds):
        whether it raises is a duck test of the pool's type, deciding what the handlers do."""
        if self.tries and base & POOL and not base & BUILT and is_swa_word(name):
            self.source(POOL | (base & STALE))
        return base

    def current_pool(self) -> Taint:
        """The pool of the forward under way (a forward-context accessor): live when read,
        in a closure too (asked when it is called); kept outside per-forward code, it is the
        pool of the moment it was asked."""
        return CLEAN if self.deferred else self.source(POOL)

    def source(self, value: Taint) -> Taint:
        """Every pool-derived read inside an open ``try`` decides what its handlers do."""
        if self.tries and value & STATE:
            for opened in self.tries:
                opened[0] |= value
        return value

    def is_runner(self, node: ast.AST) -> bool:
        while type(node) in _THROUGH and not is_self(node.value):
            if type(node) is ast.Attribute and node.attr.endswith("runner"):
                return True  # get_forward_context().attn_backend.model_runner: a runner's
            node = node.value  # model_runner.model_config.is_hybrid_swa: rooted at the runner
            # (or at a list of them: backends[0].token_to_kv_pool)
        if isinstance(node, ast.Name):
            return node.id in self.runners or node.id.endswith("runner")
        attr = self_attr(node) or ""  # self.kv_holder = model_runner: the runner, named otherwise
        return attr.endswith("runner") or bool(attr) and self.owner.holds_runner(attr)

    def runner_choice(self, node: ast.AST) -> bool:
        """``node`` is one of the runners (a parameter of a construction-time method), or picks
        one (``owner or model_runner``, ``target if target is not None else self``)."""
        kind = type(node)
        if kind is ast.Name:
            return node.id in self.runners
        if kind is ast.IfExp:
            return self.runner_choice(node.body) or self.runner_choice(node.orelse)
        return kind is ast.BoolOp and any(map(self.runner_choice, node.values))

    def runner_part(self, node: ast.AST) -> bool:
        """``model_runner.model``, ``self.model_runner.model_config.hf_config``: something the
        runner holds that is not its pool (a duck test of it asks about the model, not a
        pool: ``hasattr(model_runner.model, "get_attention_sliding_window_size")``)."""
        if type(node) is not ast.Attribute or not self.is_runner(node) or (
                self.is_runner_itself(node)):
            return False
        while type(node) is ast.Attribute and node.attr != ACTIVE_POOL:
            node = node.value
        return type(node) is not ast.Attribute

    def is_runner_itself(self, node: ast.AST) -> bool:
        """``model_runner`` / ``self.model_runner`` (not a path below it): what its class
        built from its own pool it still holds when a FROZEN_KV swap hands us another."""
        if isinstance(node, ast.Name):
            return node.id in self.runners or node.id.endswith("runner")
        return (self_attr(node) or "").endswith("runner")

    @staticmethod
    def derived(base: Taint, attr: str) -> Taint:
        """A read off a value. Off a pool: a sub-pool (``.main_pool``, ``.swa_kv_pool``,
        ``.get_pool(r)``) is a pool, anything else but geometry and shapes is its state (a
        mapping, a buffer, a bound method). Off its data, what the data holds (a buffer of a
        layer's state object, a view) but geometry, shapes and tests; off a record (a container
        around state), only SWA-named data is."""
        if not carries(base, STATE) or attr in SHARED_POOLS:
            return CLEAN
        stale = base & STALE
        if attr in TYPE_PROBES and not base & RECORD:  # its class or class name: a choice
            # (a name is only that verdict spelled; a class object is the pool's own class)
            return CHOICE | stale if attr in TYPE_NAMES else SWA | CHOICE | stale
        if base & POOL and not base & RECORD:
            if per_layer_data(attr):  # pool.get_key_scale(i), pool.get_value_buffer: its data
                return SWA | stale
            if is_flag_like(attr):  # pool.is_swa: the pool's own answer to a type question
                return TYPE | stale if is_swa_word(attr) else CLEAN
            if is_capacity(attr):  # .size, .size_swa: how many slots this pool has
                return SIZE | stale
            if "pool" in attr.lower() and not is_geometry(attr):
                return POOL | stale  # .main_pool, .swa_kv_pool, .get_pool_for_ratio(r)
            if reads_pool_state(attr):
                return SWA | stale
            return CLEAN
        if base & POOL and "pool" in attr.lower() and not is_geometry(attr) and not base & INNER:
            return POOL | stale  # state.kv_pool off a record built around the pool (an inner
            # backend's pool is its token_to_kv_pool alone: a *_pool flag of it is no pool)
        if base & OBJECT and (reads_pool_state(attr) or attr in ("send", "__next__")):
            return base  # helper.update, gen.send: a method bound to the object (what it holds)
        if base & RECORD and attr in PARTIAL_PARTS:
            return base  # partial(f, pool).args: what the partial was built around
        if base & RECORD and not base & (OBJECT | INNER) and is_flag_like(attr) \
                and not is_swa_word(attr):
            return KIND | stale  # translator.is_translating: its verdict on the pool it was
            # built on (not SWA's question: no SWA rewrite fits a decision on it)
        if base & SWA and not base & (RECORD | OBJECT | INNER) and reads_pool_state(attr) \
                and not is_flag_like(attr):  # a layer's state object's buffer, mapping.data:
            return SWA | stale  # still the pool's data (not its dtype, shape or a test of it)
        return SWA | stale if is_swa_word(attr) and reads_pool_state(attr) else CLEAN

    def visit_Subscript(self, node: ast.Subscript) -> Taint:
        alias = attribute_alias(node)
        if alias is not None:  # self.__dict__["x"], vars(runner)["token_to_kv_pool"]
            return self.attribute(node, *alias)
        if _global_key(node) is not None:  # globals()["NAME"]
            return self.global_read(node, _global_key(node))
        holder = self.namespaces.get(last_name(node.value)) if isinstance(
            node.value, ast.Name) else None
        if holder is not None and const_str(node.slice) is not None:  # state = vars(runner)
            read = _chain(holder, const_str(node.slice), node)
            return self.attribute(node, read.value, read.attr)
        if type(node.ctx) is ast.Load:  # (a dict subclass's __missing__ runs on a miss)
            for method in ("__getitem__", "__missing__"):
                self.kept_fill(node.value, node, method)
        return self.lookup(node.value, node.slice)

    def lookup(self, table: ast.AST, key_node: ast.AST, default: Optional[ast.AST] = None) -> Taint:
        """``table[key]`` or ``table.get(key[, default])``: an element of what ``table`` holds;
        keyed by a decision (a flag, a type test) it is a value picked by that decision; a
        constant key of a dict tracked per key (``keyed_dict``) holding nothing is nothing."""
        if self.clean_entry(table, key_node):
            return self.visit(default) if default is not None else CLEAN
        saved, self.read_flag = self.read_flag, False
        key = self.index(key_node)
        kept, self.read_flag = self.read_flag, saved or self.read_flag
        if self.deciding:
            self.uses[id(table)] = "element"  # pools["swa"] or ...: what it holds decides
        held = element(self.visit(table))  # an element of a record: what it holds
        if default is not None:
            held |= self.visit(default)
        if not key & PICKERS:
            return held
        kept = kept or is_flag_read(key_node)
        if kept and self.per_forward:
            return held
        # {True: a, False: b}[flag], (a, b)[flag], names[flag]: a value picked by the decision
        return held | CHOICE | (key & PICKED_BY) | (GATED if kept else CLEAN)

    def clean_entry(self, table: ast.AST, key_node: ast.AST) -> bool:
        """``self.<attr>[key]`` of a dict tracked per key (``keyed_dict``) whose ``key`` holds
        nothing: reading it reads no other key (``self.cfg["page"]`` beside a flag entry)."""
        held, name = self_attr(table), entry_key(key_node)
        return bool(held) and name is not None and self.owner.keyed_dict(held) and not \
            self.owner.attr_value(entry_path(held, name))

    def index(self, key_node: ast.AST) -> Taint:
        """What a subscript's key picks by: indexing by a flag chooses by it (a gate, never
        rewritten); a slice bound (``table[rows, ::page]``) is a number that cuts, no choice:
        read as it is, it picks nothing (a decision inside it is its own)."""
        if type(key_node) is ast.Slice:
            for bound in (key_node.lower, key_node.upper, key_node.step):
                if bound is not None:
                    self.visit(bound)
            return CLEAN
        if type(key_node) is ast.Tuple and any(type(e) is ast.Slice for e in key_node.elts):
            return union([self.index(element) for element in key_node.elts])
        self.deciding += 1
        try:
            return self.visit(key_node)
        finally:
            self.deciding -= 1

    # -- calls --------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> Taint:
        func = node.func
        if type(func) is ast.Name and func.id in self.table_calls and func.id not in self.rebinding:
            return self.rebound_call(node, func.id, self.table_calls[func.id], False)
        if type(func) is ast.Name and func.id not in self.env and func.id not in self.rebinding:
            bound = self.owner.bound_call(func.id)
            if bound is not None:  # probe = other.is_swa; probe(pool): other.is_swa(pool)
                return self.rebound_call(node, func.id, *bound)
        return self.call(node)

    def rebound_call(self, node: ast.Call, name: str, target: ast.expr, defined: bool) -> Taint:
        """A call of ``name`` bound to ``target`` (a module global bound by assignment, a class
        attribute bound to ``staticmethod(f)``, a loop variable over a table of functions): the
        call of ``target`` (a ``functools.partial`` call: of what it wraps, its arguments
        first), and, ``defined``, of the def of that name too (a conditional binding, ``if ...:
        probe = other.is_swa`` / ``else: def probe(...)``: either may run)."""
        calls = _REBOUND.setdefault(node, {})
        call = calls.get(target)
        if call is None:
            made = ast.Call(func=target.args[0], args=[*target.args[1:], *node.args],
                            keywords=[*target.keywords, *node.keywords]) if type(
                target) is ast.Call else ast.Call(func=target, args=node.args,
                                                  keywords=node.keywords)
            call = calls[target] = ast.copy_location(made, node)
        self.rebinding.add(name)
        try:
            value = self.visit(call)
        finally:
            self.rebinding.discard(name)
        return value | self.call(node) if defined else value

    def call(self, node: ast.Call) -> Taint:
        func = node.func
        kind = type(func)
        if (func.attr if kind is ast.Attribute else func.id if kind is ast.Name else "") in \
                OPERATORS and _operator_name(func):  # (a dict lookup first: calls are many)
            spelled = _operator_spelled(node)  # operator.not_(x) is not x, operator.eq(a, b)...
            if spelled is not None:
                return self.visit(spelled)
        if isinstance(func, ast.Attribute) and func.attr == "get" and node.args and const_str(
                node.args[0]) and isinstance(func.value, ast.Call) and last_name(
                func.value.func) == "globals":
            return self.global_read(node, const_str(node.args[0]))  # globals().get("NAME")
        alias = attribute_alias(node) or self.named_read(node)
        if alias is not None:  # getattr(x, "name"[, default]), attrgetter("name")(x)
            return self.aliased_read(node, alias)
        func, args = node.func, node.args
        caller = self.caller_of(func) if type(func) is not ast.Attribute else None
        if caller is not None and len(args) == 1 and not node.keywords:  # methodcaller(m)(x)
            return self.visit(called_method(caller, args[0], node))
        if type(func) is ast.Call and type(func.func) is ast.Name and func.func.id == "getattr" \
                and len(func.args) == 2 and not func.keywords and "getattr" not in self.env:
            attr = self.spelled(func.args[1])  # getattr(kinds, self.PROBE)(pool): kinds.<PROBE>
            if attr and attr.isidentifier():
                calls = _REBOUND.setdefault(node, {})
                if attr not in calls:
                    calls[attr] = ast.copy_location(ast.Call(func=ast.copy_location(
                        ast.Attribute(value=func.args[0], attr=attr, ctx=ast.Load()), func),
                        args=args, keywords=node.keywords), node)
                return self.visit(calls[attr])
        if type(func) is ast.Call and last_name(func.func) == "partial" and func.args:
            return self.visit(ast.copy_location(ast.Call(  # partial(make, pool=p)(): make(pool=p)
                func=func.args[0], args=[*func.args[1:], *args],
                keywords=[*func.keywords, *node.keywords]), node))
        spelled = _comprehended(node) if last_name(func) in FUNCTIONAL else None
        if spelled is not None:  # map(lambda n: getattr(pool, n), NAMES): a comprehension
            comprehended, reduce, start = spelled
            made = self.comprehension(comprehended, [comprehended.elt], "" if (
                reduce == "element") else reduce)
            return (element(made) if reduce == "element" else made) | (
                self.visit(start) if start is not None else CLEAN)
        ran = _submitted(func, args, node) if type(func) is ast.Attribute and (
            func.attr in SUBMITTING) else None
        if ran is not None:  # executor.submit(probe, pool): probe(pool), its result later
            return self.visit(ran)
        made = _made_from(func, args, self.owner)
        if made is not None:  # Rec._make((a, b)) builds Rec(a, b)
            return self.made_record(node, func.value, made)
        if type(func) is ast.Attribute and func.attr == "get" and 0 < len(args) < 3 and \
                not node.keywords and (const_str(args[0]) is None or self.clean_entry(
                    func.value, args[0])):  # table.get(self.flag, d), self.cfg.get("page")
            self.kept_fill(func.value, node, "get")  # (a helper's own get)
            return self.lookup(func.value, args[0], args[1] if len(args) > 1 else None)
        name = func.id if isinstance(func, ast.Name) else ""
        paths = self.tuple_getters.get(name) or (
            getter_paths(func) if type(func) is ast.Call else None)
        if paths is not None and len(args) == 1:  # attrgetter("a", "b")(x): (x.a, x.b)
            return container(union(self.attribute(node, read.value, read.attr)
                                   for read in (_chain(args[0], p, node) for p in paths)))
        path = self.getters.get(name) or self.owner.getter(func)
        if path is not None and len(args) == 1:  # fetch = attrgetter("token_to_kv_pool")
            read = _chain(args[0], path, node)
            return self.attribute(node, read.value, read.attr)
        if name in POOL_ACCESSORS and not args and name not in self.env:
            return self.current_pool()  # get_token_to_kv_pool(): this forward's pool
        if name in REDUCERS and len(args) == 1 and not node.keywords:
            return self.reduced(args[0])
        if type(args[0] if args else None) in _COMPREHENSIONS and last_name(func) in TALLIES:
            return self.comprehension(args[0], [args[0].elt], reduce="tally")  # sum(p.size ...)
        if type(func) is ast.Subscript:  # IMPLS[verdict](): what the verdict picked, made
            picked = self.visit(func)
            if carries(picked, CHOICE) and not carries(picked, STATE_SIZE | BUILT):
                for argument in (*args, *(k.value for k in node.keywords)):
                    self.visit(argument)
                return picked
        values = tuple(map(self.visit, args))
        if node.keywords:
            values += tuple(self.visit(k.value) for k in node.keywords)
        elif type(func) is ast.Attribute and func.attr == "set" and len(values) == 1 and values[0]:
            self.set_into(node, func.value, values[0])
        if self.tries and values:  # what a call in a try is handed, an exception it raises may
            for opened in self.tries:  # carry out to a handler (``caught``)
                opened[1] |= union(values) & STATE
        if self.per_forward and self.record and not self.deferred and not self.resolver and (
                self.hands_runner_pool(node) or self.asks_held_runner(node)):
            self.runner_reads.append(node)  # window_pool(self.model_runner): the runner's
            self.runner_calls.add(id(node))  # pool, read per forward by the helper, not kept
        return self.call_value(node, name, values)

    def hands_runner_pool(self, node: ast.Call) -> bool:
        """``node`` hands the runner itself to a function, method or helper of the package
        that reads the active pool off that parameter (``def window_pool(runner): pool =
        runner.token_to_kv_pool``): what it reads is the runner's pool, which the FROZEN_KV
        swap does not rebind, as if read here."""
        handed = [i for i, arg in enumerate(node.args) if self.is_runner_itself(arg)]
        named = {k.arg for k in node.keywords if k.arg and self.is_runner_itself(k.value)}
        if not handed and not named:
            return False
        function = self.owner.callee_def(node.func)
        if function is None:
            return False
        params = params_of(function)
        given = {params[i] for i in handed if i < len(params)} | (named & set(params))
        return any(type(n) is ast.Attribute and n.attr == ACTIVE_POOL and type(n.value) is ast.Name
                   and n.value.id in given for n in nodes_under(function))

    def asks_held_runner(self, node: ast.Call) -> bool:
        """``self.updater.update(batch)``: a method of an object we built (``self.updater =
        Updater(model_runner, self)``) reading the active pool off the runner it keeps
        (``self.model_runner.token_to_kv_pool``): the runner's pool, read per forward, which
        the FROZEN_KV swap does not rebind."""
        func = node.func
        attr = self_attr(func.value) if type(func) is ast.Attribute else None
        method = self.owner.held_method(attr, func.attr) if attr else None
        return method is not None and any(
            type(n) is ast.Attribute and n.attr == ACTIVE_POOL and type(n.value) is ast.Attribute
            and is_self(n.value.value) and n.value.attr.endswith("runner")
            for n in nodes_under(method))

    def aliased_read(self, node: ast.Call, alias: tuple) -> Taint:
        """What a call spelling an attribute read returns (``getattr(x, "name"[, default])``,
        ``attrgetter("name")(x)``): the attribute, or else its default."""
        fallback = _fallback(node)  # the value when x has no such attribute
        if fallback is None:
            return self.attribute(node, *alias)
        self.defaulted, outer = alias[1], self.defaulted
        try:
            value = self.attribute(node, *alias)
        finally:
            self.defaulted = outer
        return value | self.visit(fallback)

    def set_into(self, node: ast.Call, holder: ast.AST, value: Taint) -> None:
        """``_MAP_VAR.set(mapping)``: a context variable of the module (or any object it
        keeps) holds the value now, past the call."""
        held = self.module_object(holder)
        if held is not None:
            self.store(held, node, None, node.args[0],
                       container(self.controlled(node.args[0], value)), "module")

    def call_value(self, node: ast.Call, name: str, values: Tuple[Taint, ...]) -> Taint:
        """What a call returns, given what its arguments (then its keywords' values) hold;
        ``name``: the local or global name called (``""`` for ``obj.method(...)``)."""
        value = self.builtin_value(node, name, values)
        if value is None:
            value = self.library_value(node, name, values)
        return value if value is not None else self.callee_value(node, name, values)

    def builtin_value(self, node: ast.Call, name: str,
                      values: Tuple[Taint, ...]) -> Optional[Taint]:
        """What a call of a builtin that tests or passes on its argument returns
        (``isinstance``, ``hasattr``, ``type``, ``bool``, ``cast``, ``callable``); None for
        any other call."""
        args = node.args
        if name in ("isinstance", "issubclass") and len(args) == 2:
            if type(args[1]) is ast.Name and args[1].id in self.env:  # for cls in TYPES: ...
                self.narrowing[id(node)] = (args[1].id, values[0])
            swa = self.owner.type_names_swa(args[1]) or self.local_types_swa(args[1])
            if swa and not values[0] & STATE and _names_other_classes(args[1]):
                swa = False  # isinstance(layer, SWAAttention): SWA, but not a pool's type
            return self.type_test(args[0], values[0], swa)
        probed = self.spelled(args[1]) if name == "hasattr" and len(args) == 2 else None
        if probed is not None:  # (a constant, or a name holding one: ``for n in NAMES``)
            if self.deciding and is_self(args[0]):  # whether self.<x> was ever set: a test
                self.uses[id(node)] = "present"  # of the decision that set it (``facts``)
                self.gate(node, node, False, "read", name=probed)
            return self.type_test(args[0], values[0], is_swa_word(probed) and not (
                not values[0] and self.runner_part(args[0])))
        if name == "getattr" and len(args) > 1 and carries(values[1], PICKERS | GATED) and (
                is_self(args[0]) or type(args[0]) is ast.Name and args[0].id not in self.env):
            # getattr(self, IMPLS[kind]): the method (or module function) a verdict picked
            return CHOICE | (values[1] & (STALE | KIND | RUNNER | GATED))
        if name in ("type", "bool", "cast", "callable") and args:
            last = len(args) - 1  # the value of type(x), bool(x), cast(T, x)
            if name in ("bool", "callable"):  # callable(getattr(pool, "translate_...", None))
                return self.truth(args[last], values[last])
            if name == "type" and values[last] & STATE and not values[last] & RECORD:
                return values[last] | CHOICE  # the pool's class: picked by what it is
            return values[last]
        return None

    def library_value(self, node: ast.Call, name: str,
                      values: Tuple[Taint, ...]) -> Optional[Taint]:
        """What a call of a library function whose result is known from its arguments returns:
        record copies, containers, weak references, allocations, counts, awaiting and
        gathering; None for any other call."""
        func, args = node.func, node.args
        called = last_name(func)
        if called == "cast" and isinstance(func, ast.Attribute) and args:
            return values[len(args) - 1]
        if called in ("repeat", "cycle") and args and (type(func) is ast.Name or last_name(
                func.value) == "itertools"):  # an iterator drawing what it is given, again
            return container(union(values))
        if name == "next" and args and name not in self.env:  # next(iter(pools), default):
            return element(values[0]) | (values[1] if len(args) > 1 else CLEAN)  # an element
        if args and (called in CACHED_DECORATORS or type(func) is ast.Call and last_name(
                func.func) in CACHED_DECORATORS):  # lru_cache(maxsize=8)(pool.get_key_buffer):
            kept = union(self.owner.method_returns(a.attr, ()) for a in args  # (of a method of
                         if type(a) is ast.Attribute and is_self(a.value))  # ours: its answers)
            return container(union(values) | kept)  # the function it wraps, kept
        source = _copied_record(func, args)
        if source is not None:  # replace(rec, x=v), copy.copy(rec), rec._replace(x=v)
            return self.record_copy(node, source, values)
        if called == "fromkeys" and type(func) is ast.Attribute and last_name(func.value) in \
                CONTAINERS:  # dict.fromkeys(layers, sub_pool): every key holds it
            return container(union(values))
        if name == "vars" and len(args) == 1:  # the object's namespace: what it holds
            return container(values[0])
        if called in REFERENCES and name not in self.env:
            return values[0] if args else CLEAN  # weakref.proxy(pool) is the pool, its ref too
        if called == "finalize" and len(args) > 1 and name not in self.env:
            return container(union(values[1:]))  # weakref.finalize(obj, fn, pool): keeps both
        if called == "register" and args and type(func) is ast.Attribute and last_name(
                func.value) == "atexit":  # atexit.register(fn, pool): fn back, both kept
            return values[0] | (container(union(values[1:])) if len(args) > 1 else CLEAN)
        if called in ALLOCATING and union(values) & SIZE:
            return self.source(SWA | SIZE | (union(values) & STALE))  # sized for that pool
        if called in COUNTING and name not in self.env:  # int(size), max(size, 64), cdiv(size,
            held = union(values)  # 8), int(isinstance(...)); int(layers_mapping[i][1]): what
            kept = held & (SWA | STALE) if called in CONVERTING and held & SWA and not (
                held & (SIZE | RECORD | POOL)) else CLEAN  # the pool says of a layer, as a number
            return sized(held) | encoded(held) | kept
        if called in AWAITING and args and type(func) is ast.Attribute and (
                called != "run" or last_name(func.value) == "asyncio"):
            if id(args[0]) in self.fields:  # (the fields of what it returns too)
                self.fields[id(node)] = self.fields[id(args[0])]
            return values[0]  # asyncio.run(probe(pool)): what the coroutine returns
        if called in GATHERING and type(func) is ast.Attribute:  # asyncio.gather(a(), b())
            return container(union(values))
        return None

    def callee_value(self, node: ast.Call, name: str, values: Tuple[Taint, ...]) -> Taint:
        """What a call of anything else returns: a local function or object of the module
        run with these arguments, a function of the module or the package followed, a record
        or object built, a method called."""
        func, args = node.func, node.args
        called = last_name(func)
        if name in self.env:  # a local function: what it captured, and made of its arguments
            if name in self.made_by and any(values):  # probe = Probe(); probe(pool)
                called = self.called_object(self.made_by[name], node, values)
                if called is not None:
                    return called
            return self.env[name] | self.local_call(name, node, values)
        if type(func) is ast.Call and type(func.func) is ast.Name and any(values):
            called = self.called_object(func.func.id, node, values)  # Probe()(pool)
            if called is not None:
                return called
        if self.deferred and any(v is not CLEAN and carries(v, ALLOC) for v in values):
            # (a closure asks the allocator it hands a helper when it is called: live)
            values = tuple(v & ~ALLOC for v in values)
        if type(func) is ast.Lambda and any(values):  # (lambda p: p.swa_kv_pool)(pool)
            return self.evaluate_local("<lambda>", func, node, values)
        # a value holding something (counted in C: the members are singletons), or the runner
        follow = values.count(CLEAN) < len(values) or any(self.is_runner(a) for a in (
            *args, *(k.value for k in node.keywords)))  # else nothing to carry
        # make(pool=...), make(**{"pool": ...}): what each is given, bound to its parameter
        keywords = tuple((k, v) for k, v in self.keyword_values(node, values[len(args):])
                         if v is not CLEAN)
        if self.klass and type(func) is ast.Attribute and type(func.value) is ast.Name and (
                func.value.id == "cls" and "cls" not in self.env):  # cls.probe(pool) in a
            func = ast.Attribute(value=ast.Name(id=self.klass, ctx=ast.Load()), attr=func.attr,
                                 ctx=ast.Load())  # factory: a sibling classmethod/staticmethod
        if follow and self.record and not self.deferred and not self.klass and (
                name == "cls" or name == self.owner.class_name and name not in self.env):
            # cls(pool=...), Klass(...) in a factory of this class: its __init__'s arguments
            self.owner.note_call("__init__", values[: len(args)], dict(keywords))
        handed = selves(args)  # helper(self): the backend handed itself
        if handed and self.record and not self.deferred:  # helper(self, pool): its turn as a
            self.owner.note_call(handed_name(func), tuple(  # method runs with what it is given
                v for i, v in enumerate(values[: len(args)]) if i not in handed), dict(keywords))
        if handed and not union(values) & (STATE | STALE) and self.owner.makes_generator(func):
            return CLEAN  # gen(self): its frame holds the backend, whose live pool each resume
            # reads (what it yields is read then, not now)
        returned = self.owner.function_returns(func, values[: len(args)], follow, keywords,
                                               handed)
        if returned is not None:  # a function of this module or of the package
            returned = self.function_call(node, returned, values, keywords, handed)
            if self.deferred and not returned & STALE and not any(v & STATE for v in values):
                return CLEAN  # a closure's call runs when it is called, on what is live then
            if self.owner.makes_generator(func):  # bound as it is made (not consumed at once:
                # dict(gen(pool))), the generator's frame keeps what it was handed, and its
                # methods (send, __next__) are bound to that frame (``bind``)
                self.keep_frame(node, union(values))
            return returned
        if name == "cls" and self.klass and not self.owner.is_record_type(ast.Name(id=self.klass)):
            return self.remade(node, ast.Name(id=self.klass, ctx=ast.Load()), node.args, values,
                               follow)  # cls(pool) in a factory of a plain class: Klass(pool)
        if called in CONTAINERS or self.owner.is_record_type(func) or name == "cls":
            self.note_fields(node, values)
            held = union(values)  # (a copy of a table of verdicts is one: tuple(genexp))
            copied = held & VERDICTS if called in CONTAINER_COPIERS else CLEAN
            return container(held) | copied  # a record (dataclass, namedtuple...) of its args
        if _is_class_name(func):  # (an object given the backend itself may copy its state)
            return self.construct(node, values, follow or any(map(is_self, (
                *args, *(k.value for k in node.keywords)))))  # Helper(self), Helper(owner=self)
        if isinstance(func, ast.Attribute):
            return self.method_call(node, func, values)
        default = self.class_params.get(name) if type(func) is ast.Name else None
        if default is not None:  # inner_cls(model_runner), inner_cls=WindowedBackend: that class
            return self.remade(node, default, args, values, follow or any(map(is_self, (
                *args, *(k.value for k in node.keywords)))))
        self.visit(func)
        if args and is_flag_name(last_name(func).lstrip("_")) and values[0] & POOL and not (
                values[0] & BUILT):  # is_swa(pool) of a module the analysis does not see (a
            return self.type_test(args[0], values[0], True)  # file alone: flake8): its name
        return self.unseen_call(args, values)  # says what it tests

    def unseen_call(self, args: list, values: Tuple[Taint, ...]) -> Taint:
        """What a function the analysis does not see returns: of a pool decision or a capacity,
        that decision or capacity as a value (``torch.tensor(is_swa)``, ``np.int64(pool.size)``);
        handed a function of ours (a lambda, a nested def), a wrapper keeping it and what it
        closes over (``torch.compile(gather)``)."""
        wrapped = union(v for a, v in zip(args, values) if type(a) is ast.Lambda or type(
            a) is ast.Name and a.id in self.local_defs)
        return sized(union(values)) | encoded(union(values)) | wrapped

    def called_object(self, klass: str, node: ast.Call, values: Tuple[Taint, ...],
                      attr: str = "__call__", held: Taint = CLEAN) -> Optional[Taint]:
        """What calling an object of the module's class ``klass`` (its method ``attr``)
        returns: that method run with these arguments (the object's own ``self`` is not the
        backend's)."""
        method = self.owner.called_object(klass, attr)
        if method is None:
            return None
        keywords = tuple((k, v) for k, v in self.keyword_values(node, values[len(node.args):])
                         if v is not CLEAN)
        passed = values[: len(node.args)]
        return self.owner.function_returns(ast.Name(id=method[0], ctx=ast.Load()), (
            held, *passed) if method[1] else passed, True, keywords)  # (held: the object's)

    def receiver_class(self, holder: ast.AST) -> Optional[str]:
        """The class of the module an object whose method is called was made by: ``Klass()``
        there, a local or module global bound to one, a ``self`` attribute made so."""
        kind = type(holder)
        if kind is ast.Call:
            return holder.func.id if type(holder.func) is ast.Name else None
        if kind is ast.Name:
            name = holder.id
            if name in self.env:  # (a local holding one of ours: for child in (self.a, ...))
                held = self_attr(self.held[name]) if name in self.held else None
                return self.made_by.get(name) or (
                    self.owner.made_by(held, "self") if held else None)
            return self.owner.made_by(name, "module")
        attr = self_attr(holder) if kind is ast.Attribute else None
        return self.owner.made_by(attr, "self") if attr else None

    def record_copy(self, node: ast.Call, source: ast.AST, values: Tuple[Taint, ...]) -> Taint:
        """A copy of a record with fields replaced: what the source holds and what is given
        (made under a pool decision, a value given is that decision: ``flag=True`` under
        ``isinstance``); each field holds its own, for a store of the copy to keep."""
        given = len(node.args)
        held = values[0] if given else self.visit(source)
        nodes = [k.value for k in node.keywords if k.arg]
        changes = [(name, self.controlled(n, v)) for n, (name, v) in zip(
            nodes, self.keyword_values(node, values[given:]))]
        fields = {**self.fields_of(source), **dict(changes)}
        if any(fields.values()):
            self.fields[id(node)] = fields
        return container(held | union(v for _, v in changes)) or held

    def caller_of(self, func: ast.AST) -> Optional[ast.Call]:
        """The ``methodcaller`` ``func`` is: spelled there, or a local or module global bound
        to one."""
        kind = type(func)
        if kind is ast.Name:
            return self.callers.get(func.id) if func.id in self.env else self.owner.caller(func)
        return method_caller(func) if kind is ast.Call else None

    def made_record(self, node: ast.Call, record: ast.AST, fields: list) -> Taint:
        """``Rec._make((a, b))``: what ``Rec(a, b)`` holds, its fields kept for ``node``."""
        call = ast.copy_location(ast.Call(func=record, args=fields, keywords=[]), node)
        value = self.visit(call)
        if id(call) in self.fields:
            self.fields[id(node)] = self.fields.pop(id(call))
        return value

    def remade(self, node: ast.Call, klass: ast.AST, args: list, values: Tuple[Taint, ...],
               follow: bool) -> Taint:
        """``node`` builds an object of ``klass`` (``cls(...)`` in its factory): what that
        constructor keeps on it, its fields kept for ``node`` (whose callee the swap may hand
        its pool to: ``site``)."""
        call = ast.copy_location(ast.Call(func=klass, args=args, keywords=node.keywords), node)
        value = self.construct(call, values, follow, node.func)
        if id(call) in self.fields:
            self.fields[id(node)] = self.fields.pop(id(call))
        return value

    def function_call(self, node: ast.Call, returned: Taint, values: Tuple[Taint, ...],
                      keywords: tuple, handed: Tuple[int, ...] = ()) -> Taint:
        """A call of a function of this module or of the package: what it returns, the fields
        of the record it builds (``Facts.of(pool)``), the module globals it sets (``global X``
        there: a store of this call) and, cached, a sink of its own; ``handed``: the
        positions of the arguments that are ``self``."""
        func, passed = node.func, values[: len(node.args)]
        fields = self.owner.function_fields(func, passed, keywords, handed)
        if fields:
            self.fields[id(node)] = fields
        for made in self.owner.function_globals(func, passed, keywords, handed):  # install(
            self.store(made.attr, made.node or node, made.statement, made.value or node,
                       made.taint, "module", made.under, made.memo if made.lazy else "")
            # install(pool): its stores, where they stand in this module, made by this call
            # (another module's: at the call), a lazy fill there one here too
        for index, path, taint in self.owner.function_param_stores(func, passed, keywords,
                                                                   handed):
            held = node.args[index] if index < len(node.args) else None
            where = self_path(held) or self.held_path(held) if held is not None else None
            if where and not isinstance(held, ast.Starred):  # prime(self.meta, pool): on
                self.store(f"{where}.{path}", node, None, node, taint)  # self.meta, here
        if self.record and not self.deferred:  # translate(loc): `if _MAP is None` in it
            for event in self.owner.function_gates(func, passed, keywords, handed):
                self.gates.setdefault(id(event.node), event)
        returned = self.cached(node, func, returned, values)
        if id(node) in self.runner_calls:
            return returned  # the runner's pool read per forward: reported at the call
        if carries(returned, STALE) and carries(returned, STATE) and not carries(
                returned, RECORD) and not any(carries(v, STALE) for v in values):
            self.kept_calls.add(id(node))
        if self.deciding and returned & STALE:  # if windowed(): what it answers is kept state
            decided = returned
            now = self.read_now(node.args, passed)
            if now is not None:  # is_swa_pool(pool) in __init__: the decision itself
                decided = self.owner.function_returns(
                    func, now, True, keywords, handed) or CLEAN
            if decided & STALE and any(v & STALE for v in passed):  # stale only by what it is
                decided = self.owner.function_returns(  # handed (a parameter some caller fed
                    func, tuple(v & ~STALE for v in passed), True, keywords, handed) or CLEAN
                # the init-time pool): a test of that argument, as inline (judged where it is)
            if decided & STALE:
                self.gate(node, node, False, "global", decided, name=f"{last_name(func)}()")
        return returned

    def keyword_values(self, node: ast.Call, values: Tuple[Taint, ...]) -> List[Tuple[str, Taint]]:
        """``(name, taint)`` of each keyword argument, a ``**`` of a dict display with constant
        keys (or of a local bound to one) spelled out: ``make(**{"pool": pool})``."""
        found = []
        for keyword, value in zip(node.keywords, values):
            if keyword.arg:
                found.append((keyword.arg, value))
                continue
            spread = keyword.value
            if type(spread) is ast.Name:  # (bound to a dict display, or to dict(k=v, ...))
                found.extend((self.keyed.get(spread.id) or self.record_locals.get(
                    spread.id, {})).items())
            elif type(spread) is ast.Dict:
                found.extend((const_str(k), self.visit(v))
                             for k, v in zip(spread.keys, spread.values) if const_str(k))
            elif id(spread) in self.fields:  # **self._kwargs(runner): the dict it returns
                found.extend(self.fields[id(spread)].items())
        return found

    def note_fields(self, node: ast.Call, values: Tuple[Taint, ...]) -> None:
        """What each field of a record built here holds (``Layout(enabled=isinstance(...))``,
        positional fields of a record type of the module, ``cls(True, ...)`` under a type test
        in a factory classmethod): a store of the record keeps each field as
        ``<attr>.<field>``, so a gate on ``self.layout.enabled`` reads its own."""
        count = len(node.args)
        func = node.func
        if self.klass and last_name(func) == "cls":  # cls(...) in a factory of that class
            func = ast.Name(id=self.klass)
        nodes = [*node.args, *(k.value for k in node.keywords)]
        values = tuple(self.controlled(n, v) for n, v in zip(nodes, values))
        fields = dict(zip(self.owner.record_fields(func), values[:count]))
        fields.update(self.keyword_values(node, values[count:]))  # Rec(**kw) too
        if any(fields.values()):
            self.fields[id(node)] = fields

    def fields_of(self, value_node) -> Dict[str, Taint]:
        """The fields of the record ``value_node`` builds, or of the local bound to one; a
        value picked by ``or``/``and`` or a ternary holds the fields of each record it may be
        (``config or Config.of(runner)``)."""
        kind = type(value_node)
        if kind is ast.Name:
            return self.record_locals.get(value_node.id, {})
        if kind is ast.BoolOp or kind is ast.IfExp:
            found: Dict[str, Taint] = {}
            for part in value_node.values if kind is ast.BoolOp else (
                    value_node.body, value_node.orelse):
                _merge(found, self.fields_of(part))
            return found
        return self.fields.get(id(value_node), {})

    def local_call(self, name: str, node: ast.Call, values: Tuple[Taint, ...]) -> Taint:
        """What a nested function returns when called here with these arguments (a closure
        factory: ``make_translator(pool)`` returns a closure over the pool it was given)."""
        function = self.local_defs.get(name)
        if function is None or name in self.calling or not any(values):
            return CLEAN
        key = (id(function), values, tuple(k.arg for k in node.keywords))
        if key not in self.local_results:  # (called again with the same taints: the same)
            self.local_results[key] = self.evaluate_local(name, function, node, values)
        return self.local_results[key]

    def evaluate_local(self, name: str, function: ast.AST, node: ast.Call,
                       values: Tuple[Taint, ...]) -> Taint:
        params = params_of(function)
        env = {k: v for k, v in self.env.items() if k not in params}
        env.update(self.defaults(function.args))
        env.update(zip(params, values[: len(node.args)]))
        env.update(self.keyword_values(node, values[len(node.args):]))
        inner = MethodFlow(self.owner, function, self.name, env=env, record=False,
                           deferred=self.deferred, runners=self.runners,
                           calling=self.calling | {name})
        inner.allocators = self.allocators.difference(params)
        if isinstance(function, ast.Lambda):  # is_swa = lambda pool: isinstance(pool, ...)
            return inner.visit(function.body)
        return inner.run(function.body).returned

    def construct(self, node: ast.Call, values: Tuple[Taint, ...], follow: bool,
                  site: Optional[ast.AST] = None) -> Taint:
        """``Helper(pool)``, ``mod.Inner(model_runner)``: an object outliving the call holds
        what its constructor stores on it (for a class of the module or the package, as the
        owner judges it: ``constructed``), else whatever it was given. Its fields are kept as
        a record's (a gate on ``self.helper.is_swa`` reads its own) and its methods are bound
        to it (``self.update = Helper(pool).update`` keeps the pool)."""
        count = len(node.args)
        keywords = tuple(self.keyword_values(node, values[count:]))
        built = self.owner.constructed(node.func, values[:count], keywords,
                                       site) if follow else None
        if built is None:
            self.note_fields(node, values)
            held = container(union(values))
        else:
            if any(built.fields.values()):
                self.fields[id(node)] = built.fields
            if built.entered is not None:
                self.entering[id(node)] = built.entered
            held = container(built.held | (union(values) if built.loose else CLEAN))
            if not built.bound:
                return held
        return held | OBJECT if held else CLEAN

    def cached(self, node: ast.Call, func: ast.AST, returned: Taint, values=()) -> Taint:
        """A ``functools.cache``d function keeps its first result: a sink of its own, unless
        it is keyed on the live pool (given as an argument): each pool gets its own entry."""
        if returned & (STATE | DECISION) and not keyed_by_pool(values) and \
                self.owner.is_cached_function(func):
            self.sink(StoreEvent(f"{last_name(func)}()", node, None, node, returned,
                                 self.alone, False, "cache"))
            return returned | STALE
        return returned

    def keep_frame(self, node: ast.Call, handed: Taint) -> None:
        """What the generator object the call ``node`` makes keeps in its frame: the pool
        state it is handed; a store of the object keeps it (``bind``)."""
        kept = handed & (STATE | STALE)
        if kept:
            self.frames[id(node)] = container(kept) | OBJECT

    def method_call(self, node: ast.Call, func: ast.Attribute, values: Tuple[Taint, ...]) -> Taint:
        owner = func.value
        if func.attr == ALLOCATOR_POOL and self.is_allocator(owner):
            self.visit(owner)  # the allocator's pool, taken without looking at the active one
            return CLEAN if self.deferred else POOL  # (asked per call in a closure: live)
        if func.attr == "__init__" and _is_super(owner):  # the base's constructor keeps what
            if self.record and not self.deferred and any(values):  # it is handed
                keywords = tuple((k, v) for k, v in self.keyword_values(
                    node, values[len(node.args):]) if v)  # (**kwargs spelled out too)
                for attr, held in self.owner.base_keeps(values[: len(node.args)], keywords):
                    self.store(attr, node, None, node, held)
            return CLEAN
        if is_self(owner) or _is_super(owner) or last_name(owner) in self.owner.class_names:
            bound = self.owner.class_bound_call(func.attr) if (
                f"self.{func.attr}" not in self.rebinding) else None
            if bound is not None:  # probe = staticmethod(utils.is_swa); self.probe(pool)
                return self.rebound_call(node, f"self.{func.attr}", bound, False)
            if self.record and not self.deferred:
                self.owner.note_call(func.attr, values[: len(node.args)], {
                    k.arg: v for k, v in zip(node.keywords, values[len(node.args):]) if k.arg})
            if is_self(owner) and self.record and not (self.per_forward or self.deferred) and (
                    any(values)):  # self._bind(pool), a method of a base in the file: what
                keywords = tuple((k.arg, v) for k, v in zip(  # it keeps on self, kept here
                    node.keywords, values[len(node.args):]) if k.arg and v)
                for attr, held in self.owner.base_keeps(values[: len(node.args)], keywords,
                                                        func.attr):
                    self.store(attr, node, None, node, held)
            passed = values[: len(node.args)]
            handed, bound = selves(node.args), is_self(owner) or _is_super(owner)
            method = self.owner.facts.methods.get(func.attr) if bound else None
            if method is not None and is_generator(method):  # self._pipeline(pool)
                self.keep_frame(node, union(values))
            returned = self.owner.method_returns(func.attr, passed, handed, bound)
            if is_self(owner) and not handed and not (self.per_forward or self.deferred):
                returned |= self.owner.override_returns(func.attr, passed)  # a heir's hook
            fields = self.owner.method_fields(func.attr, passed, handed, bound)
            if fields:  # self.builder = self._make(runner): the object it built, kept
                self.fields[id(node)] = fields
            if self.deciding and is_self(owner):  # what this call returns, for these arguments
                self.gate(node, node, False, "call", self.decides(func.attr, node.args, passed,
                                                                  returned))
            if self.deferred and not returned & STALE:
                return CLEAN  # a closure's call runs when it is called: it reads what is live then
            return returned
        if func.attr == "partial":
            return container(union(values))
        if func.attr == "result" and not node.args:  # future.result(): what it ran returned
            return self.visit(owner)
        if func.attr in ENTERING and len(node.args) == 1:  # ExitStack().enter_context(cm)
            self.visit(owner)
            return self.entered(node.args[0], values[0])
        self.kept_fill(owner, node, func.attr)
        klass = self.receiver_class(owner) if any(values) else None
        if klass is not None and self.record and not (self.per_forward or self.deferred):
            self.handed_to_kept(node, owner, klass, func.attr, values)
        if klass is not None:  # Layout().classify(pool), layout.classify(pool): its method
            returned = self.called_object(klass, node, values, func.attr, self.visit(owner))
            if returned is not None:
                return returned
        memo = self.set_default(node)
        if memo is not None:  # m = self.maps.setdefault(key, value): a fill keyed by key
            with self.memoising(memo, True):
                self.fill(owner, owner, node, container(self.controlled(node, values[1])))
        if self.deciding and func.attr in ACCESSORS:
            self.uses[id(owner)] = "element"  # pools.values(), pools.get(key)
        base = self.visit(owner)
        if type(owner) is ast.Name and owner.id == self.kwarg and func.attr in KWARG_READS:
            keyed = self.keyed.get(owner.id)  # kwargs.get("use_swa", False): what was handed
            key = const_str(node.args[0]) if node.args else None
            held = keyed.get(key, CLEAN) if keyed is not None and key is not None else base
            return held | union(values[1:2])
        if func.attr in ("startswith", "endswith") and is_type_probe(owner):
            swa = any(is_swa_word(const_str(a) or "") for a in node.args)
            return self.type_test(owner, base, swa)
        if base is CLEAN:  # nothing read off it: a library's function (``unseen_call``)
            return self.unseen_call(node.args, values)
        if func.attr in ACCESSORS and base & (STATE | RUNNER):  # pools.get("swa"), .values()
            return element(base)
        if base & SWA and not base & RECORD:  # mapping.items(), mapping.long(): still SWA state
            return SWA | (base & (STALE | CHOICE))  # (a type name lowered: still the choice)
        if base & POOL and not base & RECORD and not returns_pool_data(func.attr):
            return CLEAN  # pool.get_kv_cache_quant_method(): configuration, not its data
        if base & RECORD and base & STALE and base & STATE and not base & (OBJECT | INNER) \
                and not (self.per_forward or self.deferred):
            return SWA | STALE  # made once from a kept record of a pool (the runner's
            # translator.make_capture_tables(...)): what it made then is kept with it
        # a helper's method called returns its result, not the object it is bound to; but a
        # closure calling it later runs it on the object it captured
        return self.source(self.derived(base if self.deferred else base & ~OBJECT, func.attr))

    def kept_fill(self, owner: ast.AST, node: ast.AST, method: str) -> None:
        """``self.bufs.get(layer_id)``, ``self.bufs[layer_id]``: a method of an object the
        backend keeps (made by a class of the module) that fills the object, once, from the
        pool it reads (``pool_fill_methods``): a lazy fill of ``self.bufs``, at the call."""
        attr = self_attr(owner) if type(owner) is ast.Attribute else None
        if attr is None or not self.record or self.deferred:
            return
        klass = self.owner.made_by(attr, "self")
        if klass is not None and self.owner.fills_from_pool(klass, method, attr):
            self.store(attr, node, None, node, self.source(POOL), filled=f"{attr}.{method}")

    def handed_to_kept(self, node: ast.Call, owner: ast.AST, klass: str, method: str,
                       values: Tuple[Taint, ...]) -> None:
        """``self.hooks.register("evict", partial(f, pool.swa_kv_pool))``: a method of an object
        the backend keeps (made by a class of the module or the package) handed pool state
        stores it on that object, which keeps it: a store into ``self.hooks``, at the call."""
        if type(owner) is ast.Name and owner.id in self.held:  # child = self.prefill
            owner = self.held[owner.id]
        attr = self_attr(owner) if type(owner) is ast.Attribute else None
        if attr is None or not any(carries(v, STATE | PICKERS) for v in values):
            return
        keywords = tuple((k, v) for k, v in self.keyword_values(node, values[len(node.args):])
                         if v is not CLEAN)
        kept = self.owner.handed_keeps(klass, method, values[: len(node.args)], keywords)
        if kept:
            self.store(attr, node, None, node, kept | RECORD | STALE)

    def decides(self, method: str, args: list, passed: tuple, returned: Taint) -> Taint:
        """What a gate on ``self.<method>(...)`` decides on: its result, but for what the pool
        read from the runner right now makes stale (outside per-forward code that is the
        decision itself, like an inline type test; what it keeps is flagged at the store)."""
        if self.per_forward or not returned & STALE:
            return returned
        now = self.read_now(args, passed)
        return self.owner.method_returns(method, now) if now is not None else returned

    def read_now(self, args: list, passed: tuple) -> Optional[tuple]:
        """Outside per-forward code, ``passed`` without the staleness of what is read right now
        (the runner, its pool, a local holding them: not ``self`` state, nor a local holding
        it); None when nothing changes."""
        if self.per_forward:
            return None
        now = tuple(v & ~STALE if v and self.read_right_now(a) else v
                    for a, v in zip(args, passed))
        return now if now != tuple(passed) else None

    def read_right_now(self, node: ast.AST) -> bool:
        if self.is_runner(node):
            return True
        return type(node) is ast.Name and node.id not in self.held and node.id in self.fresh

    def reduced(self, argument: ast.AST) -> Taint:
        """``any(...)`` / ``all(...)`` over tests: the tests' decision, not a container."""
        if isinstance(argument, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            return self.comprehension(argument, [argument.elt], reduce="any")
        if isinstance(argument, (ast.Tuple, ast.List, ast.Set)):
            return union(self.visit(el) for el in argument.elts)
        return self.visit(argument) & DECIDED

    def is_allocator(self, node: ast.AST) -> bool:
        """``node`` is the pool allocator: read under its name, or a local, parameter or
        ``self`` attribute given it (``self.alloc = model_runner.token_to_kv_pool_allocator``)."""
        kind = type(node)
        if kind is ast.Name:
            return node.id in self.allocators or carries(self.env.get(node.id, CLEAN), ALLOC)
        if kind is not ast.Attribute:
            return False
        if node.attr == ALLOCATOR:
            return True
        path = self_path(node)
        return path is not None and carries(self.owner.attr_value(path), ALLOC)

    def local_types_swa(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return self.type_locals.get(node.id, False)
        if isinstance(node, ast.Tuple):
            return any(self.local_types_swa(el) for el in node.elts)
        return False

    def type_test(self, subject_node: ast.AST, subject: Taint, swa: bool) -> Taint:
        """``isinstance(x, SWAKVPool)`` and duck tests: a decision (``TYPE``); a non-SWA type
        test of pool state (``isinstance(pool, MLATokenToKVPool)``): a decision on the pool
        too (``KIND``), which no SWA rewrite may replace."""
        if subject & BUILT or self.live_pool(subject_node) or self.deferred and not subject:
            return CLEAN  # a record's, an object's or an inner backend's type is not the
            # pool's (isinstance(self.indexer, SparseTableBackend)); a closure tests the live pool
        if swa:
            return self.source(TYPE | (subject & STALE)) if subject & STATE else TYPE | (
                subject & STALE
            )
        return KIND | (subject & STALE) if subject & STATE else CLEAN

    def live_pool(self, node: ast.AST) -> bool:
        """``self.token_to_kv_pool`` read in a closure: the pool when it is called, never stale."""
        return self.deferred and self_path(node) == ACTIVE_POOL

    def truth(self, node: ast.AST, value: Taint) -> Taint:
        """``bool(x)`` / ``not x`` / ``x is None``: a decision about whatever ``x`` holds."""
        if self_attr(node) == self.owner.pool_attr:
            return MIRROR
        probed = _presence(node)
        if probed is not None and not value & STATE:  # getattr(pool.main_pool, "swa_ring_size",
            held = self.visit(probed)  # None) is not None: whether the pool has it, whatever
            if held & POOL and not held & RECORD:  # it holds (a size, geometry): a duck test
                return TYPE | (held & STALE)
        decided = TYPE if value & STATE and not value & RECORD or value & CHOICE and not (
            value & VERDICT_EXCLUDED) else CLEAN  # (bool(caps & Caps.MAPPED): a verdict's own)
        if decided and value & PICKED and not value & TYPE:
            decided = KIND  # is a shard pool there: a decision on another pool class
        return decided | (value & DECIDED)

    # -- operators ----------------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> Taint:
        parts = [node.left, *node.comparators]
        values = [self.visit(p) for p in parts]
        probes = [p for p in parts if is_type_probe(p)]
        if probes and any(
            self.owner.type_names_swa(p) or is_swa_word(const_str(p) or "") for p in parts
        ):
            if any(self.live_pool(n) for p in probes for n in ast.walk(p)):
                return CLEAN  # type(self.token_to_kv_pool) in a closure: the live pool's
            return TYPE | (union(values) & STALE)
        joined = union(values)
        if joined is not CLEAN and carries(joined, CHOICE) and any(
                map(self.owner.type_names_swa, parts)):  # SWAKVPool in mro (mro a local of
            return TYPE | (joined & STALE)  # type(pool).__mro__): the type test
        probed = union(v for p, v in zip(parts, values) if p in probes) if probes else CLEAN
        if probed & STATE and not probed & RECORD:  # type(pool) is MHATokenToKVPool
            return KIND | (probed & STALE)
        nones = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is None]
        if len(parts) == 2 and nones:
            other = 1 - nones[0]
            return self.truth(parts[other], values[other])
        if len(parts) == 2 and type(node.ops[0]) in (ast.In, ast.NotIn) and is_swa_word(
                const_str(node.left) or "") and values[1] & POOL:  # "swa_kv_pool" in vars(pool)
            return TYPE | (values[1] & STALE)  # a duck test of what the pool is
        decided = TYPE if joined & CHOICE else CLEAN  # layout == "swa": the choice, tested
        if joined & SIZE and not joined & (STATE | RECORD):  # pool.size_swa > 0: a verdict on
            decided |= KIND | SIZE | (joined & STALE)  # that pool's capacity, no SWA test
        return (SWA if joined & STATE else decided) | (joined & DECIDED)

    def visit_BoolOp(self, node: ast.BoolOp) -> Taint:
        # an operand of and/or decides what the expression evaluates, wherever it stands
        return union(self.condition(v) for v in node.values)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Taint:
        if not isinstance(node.op, ast.Not):
            return self.visit(node.operand)
        self.direct_gates(node)
        self.deciding += 1
        try:
            return self.truth(node.operand, self.visit(node.operand))
        finally:
            self.deciding -= 1

    def visit_IfExp(self, node: ast.IfExp) -> Taint:
        saved, self.read_flag = self.read_flag, False
        test = self.condition(node.test)
        kept = is_flag_read(node.test) or self.read_flag
        self.read_flag = saved or kept
        body, orelse = self.visit(node.body), self.visit(node.orelse)
        picked = _choice_kind(node.body, self.owner) & _choice_kind(node.orelse, self.owner)
        if kept or (test & RUNNER and not test & (STATE | TYPE) and not self.per_forward):
            # picked by a stored stale flag or a runner flag: made under it (``GATED``), and
            # True/False, "swa"/"full" are that decision again (a second-order flag)
            gated = GATED | (test & RUNNER_STALE)
            if kept:  # (per forward it is made again each time: the gate is the finding)
                gated = CLEAN if self.per_forward else kept_decision(test)
            if not gated:
                return body | orelse
            if picked & TYPE:
                return gated & ~GATED | body | orelse
            made = GATED | (gated & RUNNER_STALE) | (CHOICE if picked else CLEAN)
            return made | body | orelse
        if not test & (STATE | TYPE | KIND):
            return body | orelse
        # True if <type test> else False is that decision, "swa" if ... else "full" a choice
        # made by it; pool if <test> else None is pool state
        if test & KIND and not test & TYPE and picked:  # "mla" if isinstance(p, MLAPool) ...
            return KIND | (test & STALE) | body | orelse
        other = PICKED if test & KIND and not test & TYPE else CLEAN  # a shard pool or None
        return (picked or SWA) | other | (test & STALE) | body | orelse

    def visit_Tuple(self, node) -> Taint:
        held = union(self.visit(el) for el in node.elts)
        return holding(held) | sized(held)  # (a shape holding the capacity)

    def visit_BinOp(self, node: ast.BinOp) -> Taint:
        """Arithmetic gives numbers, not state; on a pool's capacity, still its capacity; on a
        pool decision (a bit-field of type tests, a label built from a type name), that decision."""
        right = node.right
        if type(node.op) is ast.Mod and type(right) is ast.Tuple:  # "%s/%d" % (name, page)
            value = self.visit(node.left) | union(self.visit(e) for e in right.elts)
        else:
            value = self.visit(node.left) | self.visit(right)
        return CLEAN if value is CLEAN else sized(value) | encoded(value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> Taint:
        return encoded(union(self.visit(v.value) for v in node.values
                             if type(v) is ast.FormattedValue))

    visit_List = visit_Set = visit_Tuple

    def visit_Dict(self, node: ast.Dict) -> Taint:
        keys = union(self.visit(n) for n in node.keys if n)
        values = [self.visit(n) for n in node.values]
        names = [entry_key(n) for n in node.keys]
        if node.keys and None not in names:  # {"page": n, "swa": flag}: what each key holds
            self.entries[id(node)] = {k: (n, v) for k, n, v in zip(names, node.values, values)}
        return holding(union(values), keys)

    def visit_Starred(self, node: ast.Starred) -> Taint:
        return self.visit(node.value)

    visit_Await = visit_Starred

    def visit_NamedExpr(self, node: ast.NamedExpr) -> Taint:
        value = self.visit(node.value)
        self.bind(node.target, node.value, value, None)
        if self.walrus is not None:
            self.walrus.add(node.target.id)
        return value

    def comprehension(self, node, results, reduce: str = "") -> Taint:
        """A comprehension's container; reduced by ``any``/``all``, the decision its elements
        are; tallied (``sum``, ``min``, ``max`` of it), the number they make: a capacity summed
        or compared over sub-pools is still one."""
        saved, outer = dict(self.env), self.walrus
        self.walrus = set()
        filtered = CLEAN
        for generator in node.generators:
            source = self.visit(generator.iter)
            self.bind(generator.target, generator.iter, source & ~RECORD, None)
            for condition in generator.ifs:
                filtered |= self.decided(condition)  # the filter picks which elements are in
        once = filtered is not CLEAN and carries(filtered, TYPE_TESTS) and not (
            self.per_forward or self.deferred or self.owner.is_live_view(self.name))
        if once and self.record:
            filtered |= STALE  # a filter run once: what it admitted keeps its verdict
        taints = self.each_result(node, results)  # (a dict's key first, then its value)
        value = picked(union(taints), filtered)
        if once and not self.record:  # a helper's filter runs at each call: what it admits
            value |= CHOICE | (filtered & KIND)  # is picked by the pool it is given now (a
            # caller keeping it keeps that verdict; one calling it per forward, a live one)
        bound = {name: self.env[name] for name in self.walrus if name in self.env}
        self.env = saved
        self.env.update(bound)  # a walrus in a comprehension binds in the enclosing function
        self.walrus = bound.keys() | (outer or set()) if outer is not None else None
        if reduce == "tally":
            return sized(value)
        if reduce:  # (whether anything was picked by a pool decision: that decision)
            return value & DECIDED | (TYPE if value & (STATE | CHOICE) else CLEAN)
        # (what it iterated reaches it through its elements alone: a field read off each child
        # of a list gives the child's own, its window, not the pool it was handed)
        return holding(picked(taints[-1], filtered), value)

    def constant_names(self, iterated: ast.AST) -> tuple:
        """The constant names a loop over ``iterated`` binds (a tuple of them, or a module name
        bound to one); ``()`` for anything else."""
        return constant_strings(iterated) or (self.owner.module_strings(iterated.id) if type(
            iterated) is ast.Name and iterated.id not in self.env else ())

    def each_result(self, node, results: list) -> List[Taint]:
        """What each of ``results`` holds; over constant names (``[getattr(pool, n) for n in
        ("a", "b")]``, ``NAMES`` a tuple of them), what it holds for any of them."""
        target = node.generators[0].target
        names = self.constant_names(node.generators[0].iter) if type(target) is ast.Name and (
            len(node.generators) == 1) else ()
        if not names:
            return [self.visit(r) for r in results]
        taints = [CLEAN] * len(results)
        for name in names:
            self.strings[target.id] = name
            taints = [t | self.visit(r) for t, r in zip(taints, results)]
        self.strings.pop(target.id, None)
        return taints

    def visit_ListComp(self, node) -> Taint:
        return self.comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> Taint:
        return self.comprehension(node, [node.key, node.value])

    def visit_Lambda(self, node: ast.Lambda) -> Taint:
        return container(self.closure(node, [node.body]))

    def closure(self, function: ast.AST, body: list) -> Taint:
        """What a nested function or lambda captures: evaluated as if called later, but for
        its defaults, evaluated now and bound to their parameters."""
        params = params_of(function)
        env = {k: v for k, v in self.env.items() if k not in params}
        env.update(self.defaults(function.args))
        inner = MethodFlow(self.owner, function, self.name, deferred=True, record=self.record,
                           runners=self.runners, env=env)
        inner.allocators = self.allocators.difference(params)  # captured too
        self.closures.append(inner)
        if isinstance(function, ast.Lambda):
            return inner.visit(body[0])
        inner.run(body)
        return inner.returned | inner.used | self.captured(function, params)

    def captured(self, function: ast.AST, params) -> Taint:
        """The pool state (or decision on it) a nested ``def`` keeps alive by naming a local of
        the enclosing call (a mapping read now, used when it runs), whatever it does with it."""
        names = [n for n in nodes_under(function) if type(n) is ast.Name]
        own = {n.id for n in names if type(n.ctx) is not ast.Load}  # (its own locals)
        return union(self.env[n.id] for n in names if n.id in self.env and n.id not in params
                     and n.id not in own) & (STATE | STALE | PICKERS)  # (a verdict it decides on)

    def defaults(self, args: ast.arguments) -> Dict[str, Taint]:
        return {a.arg: self.visit(d) for a, d in _defaulted(args) if d is not None}

    # -- decisions (gates) --------------------------------------------------------------------
    def condition(self, test: ast.AST) -> Taint:
        """Evaluate a condition; every ``self`` read in it is a gate candidate."""
        if type(test) is ast.Call and last_name(test.func) in OPERATORS and _operator_name(
                test.func):
            test = _operator_spelled(test) or test  # (what it tests: operator.is_not(x, None))
        self.direct_gates(test)
        self.local_gates(test)
        self.deciding += 1
        try:
            return self.visit(test)
        finally:
            self.deciding -= 1

    def direct_gates(self, test: ast.AST) -> None:
        """``self.x`` / ``not self.x`` as a whole condition or an ``and``/``or`` operand: the
        reads a fix may rewrite into the pool test."""
        operands = test.values if isinstance(test, ast.BoolOp) else [test]
        for operand in operands:
            negated = isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not)
            inner = operand.operand if negated else operand
            if isinstance(inner, ast.BoolOp):
                self.direct_gates(inner)
            elif self_attr(inner) is not None:
                self.gate(inner, operand, negated, "attr")

    def local_gates(self, test: ast.AST) -> None:
        """What ``test`` tests itself (``GateEvent.use``); and a local holding the kept pool
        state a helper returned (``mapping = self._kept_mapping()``) tested itself is a gate
        on it (a read off it, ``idx.numel() == 0``, tests data, not it)."""
        for node, use in tested_operands(test):
            if use in WHOLE_USES and type(node) is ast.Name and node.id in self.unpacked:
                use = "element"  # full, swa = self.handles: `swa is None` tests what it holds
            self.uses[id(node)] = use
            if type(node) is ast.Name and node.id in self.tests and use in WHOLE_USES:
                self.replay(node, self.tests[node.id])
            if type(node) is not ast.Name or node.id not in self.method_locals or (
                    node.id in self.looked_up):  # (the memo's entry: a read of the memo's own)
                continue
            value = self.env.get(node.id, CLEAN)
            if value & STALE and not value & RECORD and (
                    value & SIZE or use != "compared" and value & STATE):
                self.gate(node, node, False, "local", value, name=node.id)

    def replay(self, local: ast.Name, test: ast.AST) -> None:
        """The test a local holds, evaluated as a condition whose gates are reported at the
        local (the decision); once per local binding. What it reads is tested as the test
        tests it (``ok = "swa_kv_pool" in self.attrs``: a search of what is kept there)."""
        for node, use in tested_operands(test):
            self.uses.setdefault(id(node), use)
        saved, self.gate_at = self.gate_at, local
        self.deciding += 1
        try:
            self.visit(test)
        finally:
            self.deciding -= 1
            self.gate_at = saved

    def gate(self, read: ast.AST, target: ast.AST, negated: bool, kind: str,
             bits: Taint = CLEAN, name: str = "", at: Optional[ast.AST] = None) -> None:
        """A decision reads ``read`` (reported at ``at``: the local a decision tests, for a
        read kept in one first; one finding per read, at the first decision reading it)."""
        if not self.record and kind != "global":
            return  # (a summary keeps its decisions on module globals: its caller's gates)
        name = name or self_path(read) or (
            read.func.attr if isinstance(read, ast.Call) else "")
        at = at or self.gate_at
        known = self.gates.get(id(read))
        if known is None or (kind == "attr" and (negated or known.kind != "attr")):
            # (replayed from a local: how the held test tests the read, not how the local is)
            use = "whole" if kind == "attr" else self.uses.get(
                id(read if self.gate_at is not None else at or read), "other")
            self.gates[id(read)] = GateEvent(name, at or read, target, negated, kind, bits, use)

    def decided(self, test: Optional[ast.AST]) -> Taint:
        """What a value chosen under ``test`` carries (control dependence)."""
        if test is None:
            return CLEAN
        saved, self.read_flag = self.read_flag, False
        value = self.condition(test)
        kept = is_flag_read(test) or self.read_flag
        self.read_flag = saved
        if kept:  # a stored stale flag decides: what is kept from under it is derived from it
            return CLEAN if self.per_forward else kept_decision(value)
        return (TYPE if value & STATE else CLEAN) | (value & DECIDED)

    # -- sinks --------------------------------------------------------------------------------
    def sink(self, event: StoreEvent) -> None:
        if self.record and not self.deferred:
            self.stores.append(event)

    def store(self, attr: str, node, statement, value_node, value: Taint, scope="self",
              under: Taint = CLEAN, filled: str = "") -> None:
        """``filled``: the memo a callee's lazy fill made it under (a fill here too)."""
        memo, lazy = (filled, True) if filled else self.laziness(
            MODULE_MEMO + attr if scope == "module" else attr)
        event = StoreEvent(attr, node, statement, value_node, value, self.alone, lazy, scope,
                           memo, self.control[-1] | under)
        if scope == "module" and value:  # (a summary's too: what a call of it leaves there)
            if not lazy:  # (a lazy fill holds it only in the call that fills it: a later read
                self.set_globals[attr] = self.set_globals.get(attr, CLEAN) | value  # is kept)
            self.global_stores.append(event)
        elif scope == "self" and value and self.record:  # a property's setter runs with it
            self.owner.note_call(attr + ".setter", (value,), {})
        self.sink(event)
        for field, held in self.fields_of(value_node).items():
            self.sink(StoreEvent(f"{attr}.{field}", node, None, value_node, held, self.alone,
                                 lazy, "field", memo))
        if scope == "self" and self.owner.keyed_dict(attr):
            for key, (entry, held) in self.entries.get(id(value_node), {}).items():
                self.store_entry(attr, key, node, entry, held)

    def laziness(self, named: str) -> Tuple[str, bool]:
        """``(memo, lazy)`` for a store of ``named`` (as ``memo_holder`` names it): the memo
        whose test makes it a lazy fill, and whether it is one (not a refill by the pool)."""
        memo = named if self.guards.get(named, 0) > 0 else (self.filling or [""])[-1]
        return memo, bool(memo) and not self.refreshing

    def store_entry(self, attr: str, key, node, value_node, value: Taint) -> None:
        """What ``self.<attr>[key]`` holds, for a dict every use of which names a constant key
        (``keyed_dict``): a fact (``field``) its reads of that key ask (``lookup``)."""
        memo, lazy = self.laziness(attr)
        self.sink(StoreEvent(entry_path(attr, key), node, None, value_node,
                             self.controlled(value_node, value), self.alone, lazy, "field",
                             memo))

    def controlled(self, value_node, value: Taint) -> Taint:
        """What a value made under the enclosing decisions carries (control dependence): a
        literal picked under a pool test is that decision (``True``) or a choice (``"swa"``);
        under a stored stale flag or a runner flag anything but ``None`` is derived from it."""
        decided = self.control[-1]
        if decided is CLEAN:
            return value
        if value is CLEAN:
            kind = _choice_kind(value_node, self.owner)  # a value picked under a decision
            if kind:
                return (kind if decided & TYPE else CLEAN) | (decided & ~TYPE)
            if _is_none(value_node) and decided & TYPE and not (
                    self.per_forward or self.deferred or decided & GATED):
                # else: self.swa = None, the other half of a pool decision, stale as the pool
                # tested is: a decision reading it is KVP003 (the store itself holds no pool
                # data, and KVP001 leaves it to that decision or to its pool-data twin)
                return SWA | (decided & STALE)
        # (per forward it is made again each time: the gate is the finding)
        kept = (decided & UNDER_FLAG or decided & TYPE and (
            decided & STALE or self.pool_tests) and value is CLEAN and _picked_object(
            value_node) and not self.deferred) and not self.per_forward  # (a type test's of
        # the active pool: what it picks or has made)
        if kept and not value & TYPE and not _is_none(value_node):
            # made in a branch of a stored flag, runner's or type test's alike: made under it;
            # a runner flag read in the test itself (no flag kept) is what picked it
            value |= GATED | (decided & (STALE if decided & GATED else RUNNER_STALE))
        return value

    def bind(self, target, value_node, value: Taint, statement) -> None:
        value = self.controlled(value_node, value)
        if type(value_node) is ast.Call and self.frames:  # locator = window_locator(pool)
            value |= self.frames.get(id(value_node), CLEAN)
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, (ast.Tuple, ast.List)):
            counted = _enumerated(target, value_node)  # for i, p in enumerate(pools): i counts
            for element in target.elts:
                self.bind(element, value_node, CLEAN if element is counted else value, None)
            return
        if isinstance(target, ast.Name):
            self.bind_local(target.id, value_node, value, statement, target)
            return
        path = self_path(target) if isinstance(target, (ast.Attribute, ast.Subscript)) else None
        if path is not None and path.startswith("__class__."):
            path = None  # self.__class__.x = ...: the class's attribute (class_target)
        if path is None and isinstance(target, ast.Attribute) and isinstance(
                target.value, ast.Name) and target.value.id in self.instances:
            path = target.attr
        if path is None and type(target) is ast.Attribute:
            path = self.held_path(target)  # planner = self.planner; planner.pool = ...
        if path is not None:
            return self.store(path, target, statement, value_node, value)
        attr = class_target(target, self.owner.class_names)
        if attr is not None:
            if type(value_node) is ast.Call and self.owner.is_descriptor(value_node.func):
                value = value & HELD & ~BUILT  # type(self).x = Pinned(v): self.x reads v
            return self.store(attr, target, statement, value_node, value, "class")
        if _global_key(target) is not None:  # globals()["NAME"] = ...
            return self.store(_global_key(target), target, statement, value_node, value, "module")
        if isinstance(target, ast.Subscript):
            self.visit(target.slice)
            held, key = self_attr(target.value), entry_key(target.slice)
            if held and key is not None and self.owner.keyed_dict(held):
                self.store_entry(held, key, target, value_node, value)
            entry = holding(value)
            if carries(value, CHOICE) and not carries(value, NOT_CHOSEN):
                entry |= VERDICTS  # kinds[lid] = classify(pool): a table of the verdicts
            self.fill(target.value, target.value, value_node, entry)  # a pool test picked
            return
        if isinstance(target, ast.Attribute):
            held = self.module_object(target.value)
            if held is not None:  # _TLS.pool = ...: on an object the module keeps, it outlives
                return self.store(f"{held}.{target.attr}", target, statement, value_node, value,
                                  "module")
            named = self.imported_module_global(target)
            if named is not None:  # registry.IS_SWA = ...: a global of another module
                return self.store(named, target, statement, value_node, value, "module")
            root = self.kept_root(target.value)
            if root is not None:  # state._STATE.loc_map = ...: on an object a module keeps
                return self.store(f"{root}.{target.attr}", target, statement, value_node, value,
                                  "module")
            handed = self.param_path(target)
            if handed is not None and value:  # meta.enabled = ...: on what the caller handed
                self.param_stores.append((*handed, value))
            elif type(target.value) is ast.Name and target.value.id in self.env and value and (
                    not self.per_forward):  # meta.pool = pool, kernel.pool = pool at init: the
                name = target.value.id  # local's object holds it now (per forward: what it
                self.env[name] = self.env[name] | container(value)  # holds is this forward's)
            self.visit(target.value)

    def param_path(self, node: ast.Attribute) -> Optional[Tuple[int, str]]:
        """``(position, path)`` when ``node`` is an attribute of an object a parameter of
        this function holds (``meta.store``: ``(0, "store")``), the parameter not rebound."""
        root, path = _rooted(node)
        if root is None or root not in self.params or root in self.rebound:
            return None
        return self.params.index(root), path

    def held_path(self, node: ast.AST) -> Optional[str]:
        """The ``self`` path ``node`` spells through a local holding an object of ours
        (``planner = self.planner``: ``planner.window_map`` is ``planner.window_map`` of
        ``self``), or None."""
        root, path = _rooted(node)
        held = self.held.get(root) if root is not None else None
        base = self_path(held) if held is not None else None
        return ".".join(filter(None, (base, path))) if base else None

    def kept_root(self, node: ast.AST) -> Optional[str]:
        """``node``, a chain of attribute reads, as spelled, when it is rooted at an object a
        module keeps: a global of this module, or an imported module or object (``state._STATE``,
        ``_STATE`` imported from ``state``); else None."""
        name, path = _rooted(node)
        if name is None or name in self.env or name in ("self", "cls") or (
                name in self.owner.class_names):
            return None
        if name in self.globals or self.owner.is_module_object(name) or (
                self.owner.is_imported(name)):
            return ".".join(filter(None, (name, path)))
        return None

    def imported_module_global(self, node: ast.AST) -> Optional[str]:
        """The global ``node`` names when it is ``module.NAME`` with ``module`` a module of the
        package this one imports (``from . import registry``: ``registry.POOLS``), as the index
        names it, so the module's own functions and every importer agree; else None."""
        holder = node.value if type(node) is ast.Attribute else None
        if type(holder) is not ast.Name or holder.id in self.env or holder.id == "self":
            return None
        return self.owner.module_global(holder.id, node.attr)

    def module_holder(self, node: ast.AST) -> str:
        """The module global a container ``node`` lives in (``_CACHE``, ``_NS["maps"]``: the
        global; ``_TLS.maps``: that attribute of an object the module keeps), or ``""``."""
        while type(node) is ast.Subscript:
            node = node.value
        if type(node) is ast.Attribute:
            held = self.module_object(node.value)
            if held:
                return f"{held}.{node.attr}"
            return self.imported_module_global(node) or self.kept_root(node) or ""
            # (registry.POOLS[lid] = ...; state.TABLE[lid], state of no module of the run)
        if type(node) is not ast.Name or node.id in self.env:
            return ""
        placed = self.placed_global(node)
        if placed:
            return placed
        return node.id if node.id in self.globals or self.owner.is_module_global(node.id) else ""

    def memo_holder(self, node: ast.AST) -> str:
        """What a memo test or fill names (``memo_key``): ``self.<attr>``, a class attribute,
        or a container the module keeps (``MODULE_MEMO`` + ``module_holder``): a memo filled
        once outlives the call in any of them."""
        if type(node) is ast.Name:
            node = self.held.get(node.id, node)  # memo = self.memos: the memo itself
        found = class_target(node, self.owner.class_names) or self_path(node) or (
            self.held_path(node))
        if found:
            return found
        held = self.module_holder(node)
        return MODULE_MEMO + held if held else ""

    def module_object(self, node: ast.AST) -> Optional[str]:
        """The module global ``node`` names (not a local, not one of the family's classes):
        an attribute set on it (a ``threading.local``, a namespace, a module) outlives the call."""
        if type(node) is not ast.Name or node.id in self.env or node.id in self.owner.class_names:
            return None
        return node.id if node.id in self.globals or self.owner.is_module_object(node.id) else None

    def bind_local(self, name: str, value_node, value: Taint, statement, target) -> None:
        if name in self.params:
            self.rebound.add(name)  # (what it holds now is no longer the caller's)
        if name in self.globals:
            self.store(name, target, statement, value_node, value, "module")
        # (asked before the name's own tables change: ``p = p.main_pool`` reads the old ``p``)
        kept = statement is not None and value is not CLEAN and self.reads_kept(value_node, value)
        self.env[name] = value
        if not self.per_forward and self.runner_choice(value_node):
            self.runners.add(name)  # src = target_backend if target_backend else self
        else:
            self.runners.discard(name)
        path = self_path(value_node)
        if path == ACTIVE_POOL:  # live = self.token_to_kv_pool: a test of it is of the pool
            self.pool_locals.add(name)
        else:
            self.pool_locals.discard(name)
        if path == ACTIVE_POOL or value_node is not None and self.is_runner(value_node):
            self.fresh.add(name)  # pool = model_runner.token_to_kv_pool: read right now
        else:
            self.fresh.discard(name)
        mine = path and not {ACTIVE_POOL, self.owner.pool_attr} & set(path.split(".")) or (
            type(value_node) is ast.Attribute and class_target(  # table = type(self)._memo: a
                value_node, self.owner.class_names) is not None)  # class attribute of ours
        _keep(self.held, name, value_node if mine and not self.is_runner(value_node) else None)
        _keep(self.looked_up, name, value_node if type(value_node) is ast.Call and type(
            value_node.func) is ast.Attribute and value_node.func.attr == "get" and (
                value_node.args) and self.memo_holder(value_node.func.value) else None)
        # (memo = self.memos: a container of ours, not the pool nor the runner's)
        if type(value_node) is ast.Call and type(value_node.func) is ast.Name:
            self.made_by[name] = value_node.func.id  # probe = Probe(): called later
        elif name in self.made_by:
            del self.made_by[name]
        self.bind_shape(name, value_node, value)
        self.bind_role(name, value_node, value, kept)

    def bind_shape(self, name: str, value_node, value: Taint) -> None:
        """What the local is made of: a lambda, a record's fields, a dict's keys, an inner
        backend, a copy of a ``self`` record, the ``self`` flags it holds, the allocator, the
        classes a type test may name. Each is read off ``value_node`` before it is replaced
        (``x = replace(x, ...)`` reads the old ``x``)."""
        _keep(self.local_defs, name, value_node if isinstance(value_node, ast.Lambda) else None)
        _keep(self.record_locals, name, self.fields_of(value_node) or None)
        self.keyed.pop(name, None)
        _keep(self.inner_locals, name,
              self.inner_of(value_node) if value_node is not None else None)
        if type(value_node) is ast.Dict and value:  # kw = {"pool": pool}; make(**kw)
            self.keyed[name] = {const_str(k): self.visit(v) for k, v in zip(
                value_node.keys, value_node.values) if const_str(k)}
        if _class_of(value_node):
            self.class_keys.add(name)
        else:
            self.class_keys.discard(name)
        _keep(self.copies, name, self.copy_of(value_node))
        _keep(self.aliases, name, self.alias_reads(value_node) or None)
        _keep(self.elements, name, self.element_reads(value_node) or None)
        if value is not CLEAN and carries(value, ALLOC) or type(
                value_node) is ast.Name and value_node.id in self.allocators:
            self.allocators.add(name)
        else:
            self.allocators.discard(name)
        if isinstance(value_node, (ast.Tuple, ast.Name, ast.Attribute)) and not value:
            self.type_locals[name] = self.owner.type_names_swa(value_node)

    def global_kept(self, value_node, value: Taint) -> bool:
        """``value_node`` reads pool state a module global the class set keeps
        (``mapping = _MAP_VAR.get()``): a test of the local is a decision on it."""
        return carries(value, STATE) and carries(value, STALE) and not carries(
            value, RECORD) and any(
            self.module_object(n) is not None and self.owner.global_value(n.id)
            for n in nodes_under(value_node) if type(n) is ast.Name)

    def global_copy(self, value_node) -> bool:
        """``value_node`` only reads a module global (``_FLAG``, ``_STATE.is_swa``,
        ``getattr(_STATE, "is_swa", False)``, ``globals()["FLAG"]``): a local bound to it is
        that read, evaluated again where a decision tests the local."""
        kind = type(value_node)
        if kind is ast.Subscript:
            return _global_key(value_node) is not None
        if kind is ast.Call:
            alias = attribute_alias(value_node)
            if alias is None or not _plain_test(value_node):
                return False
            value_node = alias[0]
        while type(value_node) is ast.Attribute:
            value_node = value_node.value
        return type(value_node) is ast.Name and value_node.id not in self.env and \
            value_node.id not in ("self", "cls") and value_node.id not in self.owner.class_names

    def reads_kept(self, value_node, value: Taint) -> bool:
        """``value_node`` reads pool state kept past the call: off ``self`` (``_kept_read``),
        off a module object the class set (``global_kept``), or off a local already holding
        such state (``p = self._kept; sub = p.main_pool``: ``sub`` is kept state too)."""
        if _kept_read(value_node, value) or self.global_kept(value_node, value) or (
                id(value_node) in self.kept_calls):
            return True
        if not carries(value, STATE) or not carries(value, STALE) or carries(value, RECORD):
            return False
        return any(type(n) is ast.Name and n.id in self.env and (
            n.id in self.method_locals or n.id in self.tests and self.global_copy(
                self.tests[n.id]) or any(
                _kept_read(read, value) for read, _ in self.aliases.get(n.id, ())))
            for n in nodes_under(value_node))

    def bind_role(self, name: str, value_node, value: Taint, kept: bool) -> None:
        """What the local stands for where it is used: a constant name, the live pool's
        ``id()``, a test of kept state, kept state itself (``kept``: ``reads_kept``), an
        attribute getter, a namespace, an instance of this class."""
        self.strings.pop(name, None)
        if type(value_node) is ast.Constant and isinstance(value_node.value, str):
            self.strings[name] = value_node.value
        self.pool_ids.discard(name)
        if isinstance(value_node, ast.Call) and last_name(value_node.func) == "id" and len(
                value_node.args) == 1 and self.is_pool_key(value_node.args[0]) or (
                self.batch_pool(value_node)) or type(value_node) is ast.Tuple and (
                self.is_pool_key(value_node)):  # key = (id(pool), layer_id)
            self.pool_ids.add(name)
        self.method_locals.discard(name)
        self.tests.pop(name, None)
        if carries(value, DECIDED) and (_plain_test(value_node) or self.global_copy(value_node)) \
                and id(value_node) not in self.runner_calls:
            self.tests[name] = value_node
        if (isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Attribute) and (
                is_self(value_node.func.value)) or kept and name not in self.aliases) and (
                id(value_node) not in self.runner_calls):
            self.method_locals.add(name)
        getter = getter_path(value_node)
        namespace = namespace_of(value_node) if getter is None else None
        _keep(self.getters, name, getter)
        _keep(self.tuple_getters, name, getter_paths(value_node) if getter is None else None)
        _keep(self.namespaces, name, namespace)
        if type(value_node) is ast.Call and method_caller(value_node) is not None:
            self.callers[name] = value_node
        elif self.callers:
            self.callers.pop(name, None)
        if self.siblings:
            self.siblings.pop(name, None)
        self.instances.discard(name)
        self.unpacked.discard(name)
        if getter is None and namespace is None and isinstance(value_node, ast.Call) and (
                last_name(value_node.func) == "cls" or (
                isinstance(value_node.func, ast.Name)
                and value_node.func.id in self.owner.class_names)):
            self.instances.add(name)  # backend = cls(model_runner): its attributes are ours

    def copy_of(self, value_node) -> Optional[Tuple[str, frozenset]]:
        """``(path, replaced)`` when ``value_node`` copies the record ``self.<path>`` (or a
        local copy of one): ``replace(self.meta, x=...)``, ``copy.copy(self.meta)``,
        ``self.meta._replace(x=...)``; the fields it replaced hold what was given instead."""
        if isinstance(value_node, ast.Attribute):  # md = self.meta: md.x reads self.meta.x
            path = self_path(value_node)
            return (path, frozenset()) if path is not None and path != ACTIVE_POOL else None
        if not isinstance(value_node, ast.Call):
            return None
        func, args = value_node.func, value_node.args
        if last_name(func) in RECORD_COPIERS and len(args) == 1 and (
                type(func) is ast.Name or last_name(getattr(func, "value", None)) in (
                    "dataclasses", "copy")):
            source = args[0]
        elif type(func) is ast.Attribute and func.attr in RECORD_COPY_METHODS and not args:
            source = func.value
        else:
            return None
        replaced = frozenset(k.arg for k in value_node.keywords if k.arg)
        inner = self.copies.get(source.id) if type(source) is ast.Name else self.copy_of(source)
        if inner is not None:  # a copy of a copy: replace(copy.deepcopy(self.meta), x=...)
            return inner[0], inner[1] | replaced
        path = self_path(source)
        if path is None or path == ACTIVE_POOL or any(k.arg is None for k in value_node.keywords):
            return None
        return path, replaced

    def alias_reads(self, value_node) -> Tuple[tuple, ...]:
        """``(read, name)`` of the ``self`` flags a local bound to ``value_node`` holds."""
        if value_node is None:
            return ()
        path = self_path(value_node) or class_target(value_node, self.owner.class_names)
        if path is not None:  # use = self.layout.enabled too; mapping = type(self).mapping
            return ((value_node, path),)
        named = self.named_read(value_node) if isinstance(value_node, ast.Call) else None
        if named is not None and is_self(named[0]):
            return ((value_node, named[1]),)
        if isinstance(value_node, ast.Name):
            return self.aliases.get(value_node.id, ())
        fallback = _fallback(value_node)
        if fallback is not None:  # use = getattr(layer, "use_swa", self.flag)
            return self.alias_reads(fallback)
        if type(value_node) is ast.Attribute and is_flag_name(value_node.attr):
            inner = self.inner_of(value_node.value)  # swa = self.decode_backend.<flag>
            if inner is not None:
                return ((value_node, f"{inner}.{value_node.attr}"),)
        source = _container_copied(value_node)
        return self.alias_reads(source) if source is not None else ()

    def element_reads(self, value_node) -> Tuple[tuple, ...]:
        """``(read, name)`` of the ``self`` containers whose element a local bound to
        ``value_node`` holds: ``self.layers[lid]``, ``self.layers.get(lid)``."""
        kind = type(value_node)
        if kind is ast.Subscript:
            container, key = value_node.value, value_node.slice
        elif kind is ast.Call and type(value_node.func) is ast.Attribute and \
                value_node.func.attr == "get" and value_node.args:
            container, key = value_node.func.value, value_node.args[0]
        else:
            return ()
        if self.clean_entry(container, key):
            return ()
        # (not off the pool attribute, self._swa_kv_pool.layers_mapping[lid]: its store, or
        # the flag gate its reads sit under, is that finding; resolved, it is live)
        return tuple(read for read in self.alias_reads(container)
                     if read[1].partition(".")[0] != self.owner.pool_attr)

    def fill(self, holder: ast.AST, node: ast.AST, value_node, held: Taint) -> bool:
        """``self.pools[i] = pool`` / ``self.maps.append(...)`` / ``_CACHE[key] = pool``: the
        container that outlives the call now holds the state (or, filled under a pool test,
        is there only when that test passed: ``if isinstance(pool, ...): self.t["k"] = buf``)."""
        if not held and not self.control[-1] & TYPE_TESTS:
            return False
        while type(holder) is ast.Call and type(holder.func) is ast.Attribute and \
                holder.func.attr == "setdefault" and holder.args:
            holder = holder.func.value  # self.fns.setdefault(name, []).append(fn): self.fns
        holder = self.held.get(holder.id, holder) if type(holder) is ast.Name else holder
        namespace = namespace_of(holder)
        if namespace is not None and is_self(namespace):
            return False  # vars(self).update(...) is handled as attribute stores
        path = self_path(holder)
        if path is not None:
            self.store(path, node, None, value_node, held)
            return True
        attr = class_target(holder, self.owner.class_names)
        if attr is not None:
            self.store(attr, node, None, value_node, held, "class")
            return True
        kept = self.module_holder(holder)
        if kept:  # _CACHE[key] = ..., _NS["maps"][key] = ..., _TLS.maps[key] = ...
            self.store(kept, node, None, value_node, held, "module")
            return True
        if isinstance(holder, ast.Name) and holder.id in self.env:  # bufs = []; bufs.append(
            self.env[holder.id] |= held  # pool.swa_kv_pool): the local holds it (self.x = bufs)
        return False

    # -- statements ---------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, node.value, value, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, node.value, self.visit(node.value), node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """``x op= v`` holds what ``x`` held and ``v``; a kept attribute's old value is already
        the union of its stores (each reported where made), so its store adds only ``v``."""
        extra = self.visit(node.value)
        old = self.visit(node.target)
        target = node.target
        if type(target) is ast.Attribute and (self_path(target) is not None or class_target(
                target, self.owner.class_names) is not None):
            old = CLEAN
        self.bind(target, node.value, extra | old, None)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            made, positions = self.returned_tuple(node.value)
            value = self.controlled(node.value, made)
            decided = self.control[-1]
            if decided is not CLEAN and value & BUILT and decided & TYPE_TESTS and not (
                    self.per_forward or self.deferred):
                value |= CHOICE  # a helper or closure made only for one kind of pool
            under = returned_under(self.control[-1], node.value, self.owner)
            self.returned |= value | under
            _merge(self.returned_fields, self.fields_of(node.value))
            if positions:
                _merge(self.returned_fields, positions)
            entries = self.entries.get(id(node.value)) or (self.keyed.get(
                node.value.id) if type(node.value) is ast.Name else None)
            if entries:  # return {"window_kv": sub_pool, ...}: what each key holds, for a
                _merge(self.returned_fields, {  # caller spreading it (``**self._kwargs()``)
                    k: v[1] if type(v) is tuple else v for k, v in entries.items()
                    if type(k) is str})

    def returned_tuple(self, value_node: ast.AST) -> Tuple[Taint, Dict[str, Taint]]:
        """What a returned value holds, and for a tuple display what each position holds
        (``return True, pool.swa_kv_pool``: a verdict and a sub-pool), kept as the fields
        ``#0``, ``#1``, ... of what the call returns, for an unpacking of it to spell."""
        if type(value_node) is not ast.Tuple or len(value_node.elts) > MAX_PARTS or any(
                type(e) is ast.Starred for e in value_node.elts):
            return self.visit(value_node), {}
        parts = [self.visit(e) for e in value_node.elts]
        held = union(parts)
        return container(held) | sized(held), {
            f"#{i}": self.controlled(e, p) for i, (e, p) in enumerate(zip(value_node.elts, parts))}

    def visit_Yield(self, node: ast.Yield) -> Taint:
        """A generator returns a container of what it yields (``dict(gen(pool))``); what is
        yielded under a pool decision was picked by it (which keys a dict of it has)."""
        if node.value is not None:
            value = self.controlled(node.value, self.visit(node.value))
            self.returned |= container(picked(value, self.control[-1]))
        return CLEAN  # (what ``send`` gives back)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> Taint:
        value = self.controlled(node.value, element(self.visit(node.value)))
        self.returned |= container(picked(value, self.control[-1]))
        return CLEAN

    def visit_Global(self, node: ast.Global) -> None:
        self.globals.update(node.names)

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call) and self.attribute_store(call):
            return
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            if call.func.attr in FILLERS:
                held = union(self.visit(a) for a in call.args) | union(
                    self.visit(k.value) for k in call.keywords
                )
                held = self.controlled(call, held)  # (appended under a decision: made by it)
                with self.memoising(self.set_default(call), True):
                    if self.fill(call.func.value, call.func.value, call, holding(held)):
                        return
        value = self.visit(call)
        if self.deferred and value & STATE:  # a closure writing into a sub-pool it captured
            self.used |= value & (STATE | STALE)

    def attribute_store(self, call: ast.Call) -> bool:
        """``setattr(self, "x", v)``, ``object.__setattr__(self, "x", v)``,
        ``self.__dict__.update(x=v)`` / ``vars(self).update({"x": v})``; ``setattr`` on an
        object of ours (``setattr(self.inner, "x", v)``) or one a module keeps."""
        func, args = call.func, call.args
        if last_name(func) in ("setattr", "__setattr__") and len(args) == 3 and is_self(args[0]):
            name = self.spelled(args[1])  # (reported at the call, as each store below)
            self.store(name or "<setattr>", call, None, args[2],
                       self.controlled(args[2], self.visit(args[2])))
            return True
        if last_name(func) == "setattr" and len(args) == 3 and type(args[0]) in (
                ast.Attribute, ast.Name):
            held = self_path(args[0]) or self.held_path(args[0])  # setattr(self.inner, "x", v)
            root = None if held else self.kept_root(args[0])  # setattr(state.STATE, "x", v)
            name = self.spelled(args[1]) if held or root else None
            if name:
                value = self.controlled(args[2], self.visit(args[2]))
                if held:
                    self.store(f"{held}.{name}", call, None, args[2], value)
                else:
                    self.store(f"{root}.{name}", call, None, args[2], value, "module")
                return True
        if isinstance(func, ast.Attribute) and func.attr == "setdefault" and len(args) == 2 \
                and const_str(args[0]) and is_self(namespace_of(func.value) or func):
            self.store(const_str(args[0]), call, None, args[1],  # vars(self).setdefault
                       self.controlled(args[1], self.visit(args[1])))
            return True
        if isinstance(func, ast.Attribute) and func.attr == "update":
            namespace = namespace_of(func.value)
            if namespace is None or not is_self(namespace):
                return False
            for name, value_node, held in self.named_entries(call):  # (each reported at the
                value = self.visit(value_node) if held is None else held  # call: its statement)
                self.store(name, call, None, value_node, self.controlled(value_node, value))
            return True
        return False

    def named_entries(self, call: ast.Call) -> Iterator[Tuple[str, ast.AST, Optional[Taint]]]:
        """``(name, value, held)`` for each entry ``vars(self).update(...)`` gives: keywords,
        ``**`` and dict displays, ``dict(x=...)``, a local bound to a dict display (its value
        node is that local, ``held`` what the display held under the name, ``keyed``; None
        for the others, whose value is visited: ``update(x=other)`` names a plain local)."""
        for keyword in call.keywords:
            if keyword.arg is not None:
                yield keyword.arg, keyword.value, None
            elif isinstance(keyword.value, (ast.Dict, ast.Name, ast.Call)):
                yield from self.dict_entries(keyword.value)
        for arg in call.args:
            yield from self.dict_entries(arg)

    def dict_entries(self, node: ast.AST) -> Iterator[Tuple[str, ast.AST, Optional[Taint]]]:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if const_str(key) is not None:
                    yield const_str(key), value, None
                elif key is None:
                    yield from self.dict_entries(value)
        elif isinstance(node, ast.Call) and last_name(node.func) == "dict" and not node.args:
            yield from self.named_entries(node)
        elif isinstance(node, ast.Name):
            yield from ((name, node, held) for name, held in self.keyed.get(node.id, {}).items())

    def visit_FunctionDef(self, node) -> None:
        self.env[node.name] = container(self.closure(node, node.body))
        self.local_defs[node.name] = node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """A class made by this call (its methods are not this method's code): its name holds
        what its body computes and what its methods name of this call's locals, kept as long
        as the class is (a factory specialising a class for one pool)."""
        held = CLEAN
        for statement in node.body:
            if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef):
                held |= self.captured(statement, params_of(statement))
            elif type(statement) in (ast.Assign, ast.AnnAssign) and statement.value is not None:
                held |= self.visit(statement.value) & (STATE | STALE | PICKERS)
        if held:
            self.env[node.name] = container(held)

    def visit_Assert(self, node: ast.Assert) -> None:
        self.condition(node.test)
        if node.msg is not None:
            self.visit(node.msg)

    def visit_If(self, node: ast.If) -> None:
        """An ``if``/``elif``/``else`` chain, one level deep however long: each block runs
        under every test before it (it is reached only when they fail)."""
        before = dict(self.env)
        merged = dict(before)
        decided = CLEAN
        ends = False
        opened = self.pool_tests
        latch = self.latch_of(node)
        while True:
            ends = ends or _terminates(node.body)
            self.env = dict(before)
            memo = self.memo_of(node)
            tested = self.decided(node.test)
            self.pool_tests += _tests_active_pool(node.test, self.pool_locals)
            decided |= CLEAN if memo and memo[1] and type(node.test) is not ast.BoolOp \
                else tested  # (a memo's key: no pool decision; the tests joined to it decide)
            if self.narrowing:  # (a type test naming a local class was seen)
                self.env.update(self.narrowed(node.test))
            with self.memoising(memo, True), self.latched(latch, True):
                self.under(decided, [node.body],
                           guarded_attr(node.test, self.memo_holder) or "")
            _merge(merged, self.env)
            if len(node.orelse) != 1 or not isinstance(node.orelse[0], ast.If):
                break
            node = node.orelse[0]
        ends = ends or _terminates(node.orelse)
        self.env = dict(before)
        with self.memoising(memo, False):
            self.under(decided, [node.orelse])
        self.pool_tests = opened
        _merge(merged, self.env)
        self.env = merged
        if ends:  # after an early return, the rest of the block runs only when it was not taken
            self.control[-1] |= decided
            if latch is not None and not latch[1]:  # if self.ready: return; what follows fills
                self.filling.append(latch[0])  # (to the method's end: its run is discarded)

    def narrowed(self, test: ast.AST) -> Dict[str, Taint]:
        """``isinstance(pool, cls)`` (or a conjunct of the test) with ``cls`` a local, a loop
        over pool classes: where it passed, ``cls`` is the pool's class as ``type(pool)`` is,
        picked by what the pool is (``self.kind = cls.__name__`` keeps that choice), and so
        is what the loop bound beside it (``for kind, cls in KINDS.items()``: ``kind``)."""
        tests = test.values if type(test) is ast.BoolOp and type(test.op) is ast.And else (test,)
        found = {}
        for part in tests:
            name, subject = self.narrowing.get(id(part), ("", CLEAN))
            if name and subject & STATE and not subject & BUILT:
                for sibling in self.siblings.get(name, ()):  # the key beside it: a choice
                    found[sibling] = self.env.get(sibling, CLEAN) | CHOICE | (subject & STALE)
                found[name] = self.env.get(name, CLEAN) | subject | CHOICE
        return found

    def memo_of(self, node: ast.If) -> Optional[Tuple[str, bool, bool]]:
        """``(attr, live, refills)`` for an ``if`` testing a memo against a key (``memo_key``)
        whose refilling block stores it (or that returns early: the rest refills it);
        ``live`` when the key is the pool read this call (or its ``id()``). A memo test joined
        with others by ``and`` / ``or`` (``key not in _MAPS and hasattr(pool, ...)``) still
        picks the block that fills it (the body for ``not in``, else the else-block); a test
        keyed by the live pool among them wins (``self._map is None or self._for is not pool``)
        where it refills whenever the pool changes: a slot checked by identity under ``and``
        (``self._for is not pool and ready``) keeps the old pool's state when not ready, so it
        is filled, not refreshed (a dict keyed by the pool never hands out another's entry)."""
        test = node.test
        found = None
        joined = type(test) is ast.BoolOp
        for part in test.values if joined else (test,):
            memo = self._memo_test(node, part)
            if memo is not None and memo[1] and joined and _slot_test(part) and (
                    memo[2] == (type(test.op) is ast.And)):
                memo = (memo[0], False, memo[2])  # (refilled only when the others hold too)
            if memo is not None and (memo[1] or found is None):
                found = memo
                if memo[1]:
                    break
        return found

    def _memo_test(self, node: ast.If, test: ast.AST) -> Optional[Tuple[str, bool, bool]]:
        found = memo_key(self.unaliased(test), self.memo_holder)
        if found is None:
            return None
        attr, key, refills = found
        block = node.body if refills else node.orelse
        stored = stored_names(block, self.memo_holder)
        # (the memo's own field holding its key, ``self._plan.source is not pool``: the block
        # rebuilding ``self._plan`` refills it whole)
        attr = next((a for a in _prefixes(attr) if a in stored), attr)
        if attr not in stored and (refills or not _terminates(node.body)):
            return None  # (a test of an attribute against a value, not a memo)
        return attr, self.is_pool_key(key) or self.by_class_only(key, block), refills

    def unaliased(self, test: ast.AST) -> ast.AST:
        """``test`` with a local holding a memo's lookup spelled as that lookup (``view is
        None``: ``self.views.get(key) is None``), and a walrus as what it binds (``(split :=
        getattr(self, "_split", None)) is None``: the memo's own test)."""
        if type(test) is ast.Compare and type(test.left) is ast.NamedExpr:
            test = ast.Compare(test.left.value, test.ops, test.comparators)
        if type(test) is ast.Compare and type(test.left) is ast.Name and (
                test.left.id in self.looked_up):
            return ast.Compare(self.looked_up[test.left.id], test.ops, test.comparators)
        return test

    def set_default(self, call: ast.Call) -> Optional[Tuple[str, bool, bool]]:
        """``self.<m>.setdefault(key, value)``: a memo filled for ``key`` (``memo_of``)."""
        func = call.func
        if type(func) is not ast.Attribute or func.attr != "setdefault" or len(call.args) != 2:
            return None
        attr = self.memo_holder(func.value)
        return (attr, self.is_pool_key(call.args[0]), True) if attr else None

    def is_pool_key(self, node: ast.AST) -> bool:
        """``node`` is the live pool (a local holding it, ``self.token_to_kv_pool`` read in
        per-forward code) or its ``id()``, or a tuple holding one: a memo keyed by it is
        refilled for each pool."""
        if type(node) is ast.Tuple:  # (id(pool), layer_id): one entry per pool and layer
            return any(map(self.is_pool_key, node.elts))
        if _class_of(node) or type(node) is ast.Name and node.id in self.class_keys:
            return False  # (keyed by the pool's class: every pool of it finds the first's)
        if isinstance(node, ast.NamedExpr):  # (pool := self.token_to_kv_pool) is not self._for
            node = node.value
        if isinstance(node, ast.Call) and last_name(node.func) == "id" and len(node.args) == 1:
            node = node.args[0]
        if isinstance(node, ast.NamedExpr):
            node = node.value
        if isinstance(node, ast.Name):
            return node.id in self.pool_ids or keyed_by_pool((self.env.get(node.id, CLEAN),))
        return self.per_forward and self_path(node) == ACTIVE_POOL or self.batch_pool(node)

    def batch_pool(self, node: ast.AST) -> bool:
        """``forward_batch.token_to_kv_pool`` read per forward: the pool of this very call."""
        return self.per_forward and type(node) is ast.Attribute and node.attr == ACTIVE_POOL \
            and self_path(node) is None and not self.is_runner(node.value)

    def latch_of(self, node: ast.If) -> Optional[Tuple[str, bool]]:
        """``(attr, body)`` for a one-time fill keyed by ``self.<attr>``: ``if not
        self.ready:`` / ``if self.map is None:`` whose block sets it (``body``: that block
        fills), or ``if self.ready: return`` / ``if self.map is not None: return ...`` with the
        rest of the method setting it (what follows fills). Every store of such a block is
        made once and kept, whichever attribute it sets."""
        if node.orelse:
            return None
        test, absent = node.test, False
        if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            test, absent = test.operand, True
        if type(test) is ast.Compare and len(test.ops) == 1 and _is_none(test.comparators[0]) \
                and type(test.ops[0]) in (ast.Is, ast.IsNot):
            test, absent = test.left, absent != (type(test.ops[0]) is ast.Is)
        attr = self_path(test) or self.held_path(test)
        held = self.module_holder(test) if not attr and type(test) in (
            ast.Name, ast.Attribute) else ""
        if held:
            attr = MODULE_MEMO + held  # global _MAP; if _MAP is None: ...
        if not attr:  # if key in self.memo: return self.memo[key] (the rest fills it)
            hit = memo_key(self.unaliased(node.test), self.memo_holder)
            return (hit[0], False) if hit and not hit[2] and _terminates(node.body) and (
                hit[0] in self.method_stores()) and not self.is_pool_key(hit[1]) else None
        if attr == ACTIVE_POOL:
            return None
        if absent:
            return (attr, True) if _stores_into(node.body, attr, self.memo_holder) else None
        if _terminates(node.body) and attr in self.method_stores():
            return attr, False
        return None

    def method_stores(self) -> set:
        """What the whole method stores (``stored_names``), walked once when first asked."""
        if self._method_stores is None:
            self._method_stores = stored_names(self.statements, self.memo_holder)
        return self._method_stores

    def latched(self, latch: Optional[Tuple[str, bool]], body: bool):
        """Run the block a latch (``latch_of``) fills as a fill of it; any other as it is."""
        if latch is None or latch[1] != body:
            return _AS_IT_IS
        return self._refilling((latch[0], False, body))

    def memoising(self, memo: Optional[Tuple[str, bool, bool]], body: bool):
        """Run the block of a memo test that refills it (``body``: the if-block, else the
        else-block) as a refresh (keyed by the live pool) or as a fill (by another key); any
        other block (nearly every one: each ``if`` asks) as it is."""
        if memo is None or memo[2] != body:
            return _AS_IT_IS
        return self._refilling(memo)

    @contextmanager
    def _refilling(self, memo: Tuple[str, bool, bool]):
        if memo[1]:
            self.refreshing += 1
        else:
            self.filling.append(memo[0])
        try:
            yield
        finally:
            if memo[1]:
                self.refreshing -= 1
            else:
                self.filling.pop()

    def visit_While(self, node: ast.While) -> None:
        self.under(self.decided(node.test), [node.body, node.orelse])

    def visit_For(self, node) -> None:
        names = self.constant_names(node.iter)
        if names and type(node.target) is ast.Name:
            self.each_name(node.target.id, names, node.body)  # for name in ("a", "b"):
            if node.orelse:  # (after the last name, or not when a break left: either)
                self.blocks([node.orelse, []])
            return
        if self.each_held(node) or self.each_function(node):
            return
        iterated = self.visit(node.iter)
        if not self.bind_each(node.target, node.iter):
            self.bind(node.target, node.iter, iterated & ~RECORD, None)
            if _kept_read(node.iter, element(iterated)):  # for sub in self.subs.values():
                self.method_locals.update(_loop_values(node))  # a test of sub decides on it
        if type(node.target) is ast.Tuple:  # for kind, cls in KINDS.items(): one row's names
            names = tuple(t.id for t in node.target.elts if type(t) is ast.Name)
            self.siblings.update((name, names) for name in names)
        runs = TYPE | (iterated & STALE) if iterated & STATE else CLEAN  # whether the body runs
        self.under(runs, [node.body, node.orelse])

    visit_AsyncFor = visit_For

    def each_name(self, target: str, names: tuple, body: list) -> None:
        """A loop over constant names runs its body once per name, the loop variable holding
        it (``setattr(self, f"_{name}", getattr(pool, name))`` stores each name it gives)."""
        before, merged = dict(self.env), dict(self.env)
        for name in names:
            self.env = dict(before)
            self.env.pop(target, None)
            self.strings[target] = name
            self.run_block(body)
            _merge(merged, self.env)
        self.strings.pop(target, None)
        self.env = merged

    def each_function(self, node: ast.For) -> bool:
        """``for kind, probe in PROBES.items():`` a loop over a module table of functions runs
        its body once per entry, a call of the loop variable a call of that entry's function and
        the key its constant string (``setattr(self, f"is_{kind}", probe(pool))``); False for
        any other loop."""
        target = node.target
        if type(node.iter) is ast.Name and node.iter.id in self.env:
            return False
        table = self.owner.function_table(node.iter)
        if table is None:
            return False
        kind, rows = table
        if kind == "items" and type(target) is ast.Tuple and len(target.elts) == 2 and all(
                type(e) is ast.Name for e in target.elts):
            key, name = target.elts[0].id, target.elts[1].id
        elif kind != "items" and type(target) is ast.Name:
            key, name = None, target.id
        else:
            return False
        before, merged = dict(self.env), dict(self.env)
        for spelled, function in rows:
            self.env = dict(before)
            self.env.pop(name, None)
            self.table_calls[name] = function
            if key is not None:
                self.env.pop(key, None)
                if spelled is not None:
                    self.strings[key] = spelled
            self.run_block(node.body)
            _merge(merged, self.env)
        self.table_calls.pop(name, None)
        if key is not None:
            self.strings.pop(key, None)
        self.env = merged
        if node.orelse:
            self.run_block(node.orelse)
        return True

    def each_held(self, node: ast.For) -> bool:
        """``for inner in (self.prefill, self.decode):`` a loop over a display of objects we
        hold (or over ``self.inners``, only ever set to one) runs its body once per object, the
        loop variable holding it (``setattr(inner, "flag", value)`` stores on each); False for
        any other loop."""
        held = node.iter.elts if type(node.iter) in (ast.Tuple, ast.List) else (
            self.owner.held_list(self_attr(node.iter)) if self_attr(node.iter) else None) or ()
        if type(node.target) is not ast.Name or not held or len(held) > MAX_PARTS or any(
                type(e) is ast.Starred or self_path(e) is None for e in held):
            return False
        before, merged = dict(self.env), dict(self.env)
        for element in held:
            self.env = dict(before)
            self.assign(node.target, element, self.visit(element), None)
            self.run_block(node.body)
            _merge(merged, self.env)
        self.env = merged
        if node.orelse:
            self.run_block(node.orelse)
        return True

    def bind_each(self, target: ast.AST, iterated: ast.AST) -> bool:
        """``for flag, sub in ((True, p.swa_kv_pool),) if <test> else ...``: a loop over a
        display of tuples binds each target to what its own position holds, in any element."""
        rows = _parts(iterated) if isinstance(target, (ast.Tuple, ast.List)) else None
        pairs = [_unpacked(target, row) for row in rows or ()]
        if not pairs or any(p is None for p in pairs):
            return False
        before, merged = dict(self.env), dict(self.env)
        for row in pairs:
            self.env = dict(before)
            for t_el, v_el in row:
                self.assign(t_el, v_el, self.visit(v_el), None)
            _merge(merged, self.env)
        self.env = merged
        return True

    def visit_With(self, node) -> None:
        if any(type(i.context_expr) is ast.Call and last_name(i.context_expr.func) == "suppress"
               for i in node.items):
            return self.suppressed(node)
        for item in node.items:
            value = self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, item.context_expr,
                          self.entered(item.context_expr, value), None)
        self.under(CLEAN, [node.body])

    def suppressed(self, node) -> None:
        """``with contextlib.suppress(E): body`` is ``try: body`` with a handler that passes: a
        read of an SWA-only name off the pool there either ends the block or gives the pool's
        value (a duck test, as ``getattr(pool, name, default)`` is: ``read_off``)."""
        for item in node.items:
            self.visit(item.context_expr)
        handler = ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])
        self.suppressing += 1
        try:
            self.visit_Try(ast.Try(body=node.body, handlers=[handler], orelse=[], finalbody=[]))
        finally:
            self.suppressing -= 1

    def entered(self, call: ast.AST, value: Taint) -> Taint:
        """What ``with cm as target`` (or ``stack.enter_context(cm)``) binds: what a generator
        context manager yields (an element of what it returns), what the ``__enter__`` of an
        object of a class the analysis read returns, else the manager itself; an unknown
        manager made from the pool (``with scoped(pool) as p``) hands back that pool."""
        if id(call) in self.entering:
            return self.entering[id(call)]
        held = element(value) if value & RECORD else value
        if not held and isinstance(call, ast.Call) and type(call.func) is ast.Name:
            values = tuple(map(self.visit, call.args))
            held = union(v for v in values if v & POOL and not v & RECORD)
            if held and self.owner.function_returns(call.func, values) is not None:
                return CLEAN  # a manager the analysis read (here or in the package): what it
                # yields holds nothing of the pool (its geometry)
        return held

    visit_AsyncWith = visit_With

    def visit_Try(self, node) -> None:
        opened = [CLEAN, CLEAN]  # what its body read off the pool; what it handed to calls
        self.tries.append(opened)
        outer = self.control[-1]
        self.control.append(outer)
        before = dict(self.env)
        for statement in node.body:  # later statements ran only if the reads before did not raise
            self.control[-1] = outer | self.try_decided(opened[0])
            self.visit(statement)
        self.tries.pop()
        self.control[-1] = outer | self.try_decided(opened[0])
        body_env = self.env
        blocks = [h.body for h in node.handlers] + [node.orelse]
        self.env = dict(before)  # a handler runs after any statement, the else after them all
        _merge(self.env, body_env)
        for handler in node.handlers:
            if handler.name:
                self.env[handler.name] = self.caught(handler, opened[0] | opened[1])
        filled = self.filled_on_miss(node)
        with self._refilling((*filled, True)) if filled else _AS_IT_IS:
            self.blocks(blocks, extra=body_env)
        self.control.pop()
        if any(_terminates(h.body) for h in node.handlers):  # reached only when nothing raised
            self.control[-1] |= self.try_decided(opened[0])
        self.run_block(node.finalbody)

    visit_TryStar = visit_Try

    def filled_on_miss(self, node) -> Optional[Tuple[str, bool]]:
        """``(x, live)`` for ``try: ... self.x ... except AttributeError: self.x = ...``, or
        ``try: return self.m[key] except KeyError: self.m[key] = ...`` (one handler, no else):
        a one-time fill of what the body failed to read, kept as any lazy fill; ``live`` when
        the key is the live pool (``memo_of``)."""
        if len(node.handlers) != 1 or node.orelse:
            return None
        handler = node.handlers[0]
        kind = handler.type
        caught = {last_name(k) for k in (kind.elts if type(kind) is ast.Tuple else (kind,))}
        stored = stored_names(handler.body, self.memo_holder)
        nodes = [n for s in node.body for n in nodes_under(s)]
        if "AttributeError" in caught:
            read = {self_path(n) for n in nodes if type(n) is ast.Attribute}
            found = next(iter(sorted(read & stored)), "")
            return (found, False) if found else None
        if caught & {"KeyError", "LookupError"}:
            return next(((self.memo_holder(n.value), self.is_pool_key(n.slice) or (
                self.by_class_only(n.slice, handler.body))) for n in nodes
                if type(n) is ast.Subscript and self.memo_holder(n.value) in stored), None)
        return None

    def by_class_only(self, key: ast.AST, block: list) -> bool:
        """A memo keyed by a pool's class (``type(pool)``) whose fill reads nothing but that
        class (``cls.translate_loc_from_full_to_swa if issubclass(cls, ...)``): what it keeps
        holds for every pool of the class, so it is live; a fill reading the pool itself (its
        bound method, its buffers) keeps the first pool's."""
        if not (_class_of(key) or type(key) is ast.Name and key.id in self.class_keys):
            return False
        nodes = [n for s in block for n in nodes_under(s)]
        assigned = {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Store}
        return not any(
            type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in self.env and (
                n.id not in assigned and n.id not in self.class_keys) or self_path(n) == ACTIVE_POOL
            for n in nodes)

    def caught(self, handler: ast.ExceptHandler, read: Taint) -> Taint:
        """``except Found as found``: an exception class of the module may carry out of the
        ``try`` what its body read off the pool (``raise Found(pool.swa_kv_pool)`` in a probe):
        an object built around it. A builtin or imported one carries a message."""
        kind = handler.type
        if type(kind) is ast.Name and self.owner.is_module_class(kind.id):
            return read | OBJECT if read & STATE else CLEAN
        return CLEAN

    @staticmethod
    def try_decided(read: Taint) -> Taint:
        return TYPE | (read & STALE) if read & STATE else CLEAN

    def visit_Match(self, node: ast.Match) -> None:
        saved, self.read_flag = self.read_flag, False
        subject = self.condition(node.subject)
        kept = is_flag_read(node.subject) or self.read_flag
        self.read_flag = saved or kept
        # match self.is_swa: what a case keeps outside per-forward code is derived from it
        decided = kept_decision(subject) if kept and not self.per_forward else CLEAN
        before, merged = dict(self.env), dict(self.env)
        for case in node.cases:
            self.env = dict(before)
            if _pattern_tests_type(case.pattern, self.owner) or subject & (STATE | DECISION):
                decided |= TYPE | (subject & STALE)  # reaching this case is decided by the type
            self.bind_pattern(case.pattern, subject)
            if case.guard is not None:
                decided |= self.decided(case.guard)
            self.control.append(self.control[-1] | decided)
            self.run_block(case.body)
            self.control.pop()
            _merge(merged, self.env)
        self.env = merged

    def bind_pattern(self, pattern: ast.AST, subject: Taint) -> None:
        for node in ast.walk(pattern):
            if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self.env[node.name] = subject
            elif isinstance(node, ast.MatchClass):
                for attr in node.kwd_attrs:
                    self.env.update({p.name: self.derived(subject, attr)
                                     for p in ast.walk(node) if isinstance(p, ast.MatchAs)
                                     and p.name and p.name not in self.env})
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self.env[node.rest] = subject

    def under(self, decided: Taint, blocks: list, guard: str = "") -> None:
        self.control.append(self.control[-1] | decided)
        self.guards[guard] = self.guards.get(guard, 0) + 1
        self.blocks(blocks)
        self.guards[guard] -= 1
        self.control.pop()

    def blocks(self, blocks: list, extra: Optional[dict] = None) -> None:
        """Run alternative blocks from the same locals; a name stays tainted if any taints it."""
        before = dict(self.env)
        if extra is None:
            merged = dict(before)
        else:  # (a try's handlers: the body's locals, as any statement of it may raise)
            merged = dict(extra)
            _merge(merged, before)
        decided = self.control[-1]
        start, aliases = self.aliases, {}  # (a local aliases what any block left it aliasing)
        for block in blocks:
            self.env, self.aliases = dict(before), dict(start)
            self.run_block(block)
            self.control[-1] = decided  # an early return in one block decides only its own rest
            _merge(merged, self.env)
            for name, reads in self.aliases.items():
                aliases[name] = tuple(dict.fromkeys((*aliases.get(name, ()), *reads)))
        self.env, self.aliases = merged, aliases if blocks else start

    def run_block(self, block: list) -> None:
        for statement in block:
            self.alone = len(block) == 1
            self.visit(statement)

    def assign(self, target, value_node, value: Taint, statement) -> None:
        pairs = _unpacked(target, value_node) if isinstance(target, (ast.Tuple, ast.List)) \
            else None
        if pairs is not None:  # a, b = (True, sub) if <test> else (False, None): each its own
            for t_el, v_el in pairs:
                self.assign(t_el, v_el, self.visit(v_el), None)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            held = element(value) if value & RECORD else value  # unpacked: what it holds
            spelled = self.fields_of(value_node.value if type(value_node) is ast.Await else
                                     value_node) if value else None
            if spelled and all(f"#{i}" in spelled for i in range(len(target.elts))) and \
                    len(target.elts) == sum(k[0] == "#" for k in spelled) and not any(
                        type(t) is ast.Starred for t in target.elts):
                for i, name in enumerate(target.elts):  # a, b = probe(pool): what it returns
                    self.bind(name, value_node, spelled[f"#{i}"] | value & STALE, None)  # there
                self.unpacked.update(n.id for n in target.elts if type(n) is ast.Name)
                return
            for name in target.elts:
                self.bind(name, value_node, held, None)
            self.unpacked.update(n.id for n in target.elts if type(n) is ast.Name)
            return
        self.bind(target, value_node, value, statement)


_COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp, ast.SetComp)
# longer ternary arms and loop displays are one value (what any element may hold): each part of
# a ternary evaluates its test again, a loop's body runs once per row; keep both bounded
MAX_PARTS = 16


def _parts(node: ast.AST, limit: Optional[int] = MAX_PARTS) -> Optional[list]:
    """The elements of a tuple or list display (at most ``limit``), or of a ternary choosing
    between two of one length (``(True, p.swa_kv_pool) if <test> else (False, None)`` gives
    ``True if <test> else False`` and ``p.swa_kv_pool if <test> else None``); None when the
    shape is not spelled."""
    if isinstance(node, (ast.Tuple, ast.List)):
        if limit is not None and len(node.elts) > limit or any(
                isinstance(el, ast.Starred) for el in node.elts):
            return None
        return list(node.elts)
    if isinstance(node, ast.IfExp):
        body, orelse = _parts(node.body), _parts(node.orelse)
        if body is None or orelse is None or len(body) != len(orelse):
            return None
        return [b if _same_leaf(b, o) else ast.copy_location(
            ast.IfExp(test=node.test, body=b, orelse=o), node) for b, o in zip(body, orelse)]
    return None


def _class_of(node: Optional[ast.AST]) -> bool:
    """``type(x)`` or ``x.__class__``: the class of something, shared by all its objects."""
    kind = type(node)
    return kind is ast.Call and type(node.func) is ast.Name and node.func.id == "type" and len(
        node.args) == 1 or kind is ast.Attribute and node.attr == "__class__"


def _prefixes(attr: str) -> List[str]:
    """``a.b.c``, then ``a.b``, then ``a``: the path and each object holding it."""
    parts = attr.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _stores_into(block: list, attr: str, held: Callable[[ast.AST], str]) -> bool:
    """Whether ``block`` assigns ``self.<attr>`` (or the class attribute, the module's memo:
    whatever ``held`` names ``attr``), an item of it, or fills it in place
    (``self.<attr>.update(...)``)."""
    return attr in stored_names(block, held)


def stored_names(block: list, held: Callable[[ast.AST], str]) -> set:
    """Every name ``held`` gives what ``block`` assigns, an item of which it assigns, or that
    it fills in place: one walk of the block (``_stores_into``)."""
    found = set()
    for statement in block:
        for node in nodes_under(statement):
            kind = type(node)
            if kind in (ast.Assign, ast.AnnAssign, ast.AugAssign):
                for target in getattr(node, "targets", None) or [node.target]:
                    for part in nodes_under(target):
                        found.add(held(part))
                        if type(part) is ast.Subscript:
                            found.add(held(part.value))
            elif kind is ast.Call and type(node.func) is ast.Attribute and (
                    node.func.attr in FILLERS):
                found.add(held(node.func.value))
    found.discard("")
    return found


def _rooted(node: ast.AST) -> Tuple[Optional[str], str]:
    """``(name, path)`` for a chain of attribute reads off a name (``a.b.c``: ``("a", "b.c")``;
    ``a``: ``("a", "")``); ``(None, "")`` for anything else."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    return (node.id, ".".join(reversed(parts))) if type(node) is ast.Name else (None, "")


def _container_copied(node: ast.AST) -> Optional[ast.AST]:
    """``x`` for a whole copy of the container ``x``: ``dict(x)``, ``list(x)``, ``x.copy()``,
    ``copy.copy(x)``, ``{**x}`` (a copy with entries of its own may override what it tests)."""
    if isinstance(node, ast.Dict):
        return node.values[0] if len(node.keys) == 1 and node.keys[0] is None else None
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    if len(args) == 1 and last_name(func) in CONTAINER_COPIERS:
        return args[0]
    if not args and type(func) is ast.Attribute and func.attr in RECORD_COPY_METHODS:
        return func.value
    return None


def _kept_read(value_node: Optional[ast.AST], value: Taint) -> bool:
    """``value_node`` reads pool state kept on ``self`` (not the runner's pool read anew, nor
    an inner backend's, which per forward is the one handed to it)."""
    if value_node is None or not carries(value, STATE) or not carries(value, STALE) or \
            carries(value, RECORD):
        return False
    paths = {self_path(n) for n in nodes_under(value_node) if type(n) is ast.Attribute} - {None}
    inner = {q.rsplit(".", 1)[0] for q in paths if "." in q}  # self.a of self.a.b: not the read
    return any(p.rpartition(".")[2] != ACTIVE_POOL and not p.split(".")[0].endswith("runner")
               and p not in inner for p in paths)


def _loop_values(node: ast.For) -> Iterator[str]:
    """The loop variables that hold an element itself: the target, or the value of
    ``for key, value in x.items()`` (its key is a name, not state)."""
    target = node.target
    if type(target) is ast.Name:
        yield target.id
    elif type(target) is ast.Tuple and len(target.elts) == 2 and type(target.elts[1]) is \
            ast.Name and type(node.iter) is ast.Call and last_name(node.iter.func) == "items":
        yield target.elts[1].id


def _same_leaf(one: ast.AST, other: ast.AST) -> bool:
    """The same constant or name on both sides of a choice: not chosen by it (``8`` heads)."""
    if type(one) is ast.Constant and type(other) is ast.Constant:
        return type(one.value) is type(other.value) and one.value == other.value
    return type(one) is ast.Name and type(other) is ast.Name and one.id == other.id


def _unpacked(target: ast.AST, value_node: ast.AST) -> Optional[list]:
    """``(target, value)`` for each element of an unpacking whose value spells its elements
    (nested and starred targets too: ``a, *rest = ...`` binds ``rest`` to a list of the rest)."""
    parts = _parts(value_node, limit=None)  # (a plain display costs one visit a part)
    if parts is None:
        return None
    targets = target.elts
    stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
    if not stars:
        return list(zip(targets, parts)) if len(parts) == len(targets) else None
    star, after = stars[0], len(targets) - stars[0] - 1
    if len(stars) > 1 or len(parts) < len(targets) - 1:
        return None
    middle = ast.copy_location(ast.List(elts=parts[star:len(parts) - after], ctx=ast.Load()),
                               value_node)
    return [*zip(targets[:star], parts[:star]), (targets[star].value, middle),
            *zip(targets[star + 1:], parts[len(parts) - after:])]


def returned_under(decided: Taint, value_node: ast.AST, owner: FlowOwner) -> Taint:
    """What a result returned under a pool type test carries, whatever it is: ``if <test>:
    return a`` / ``return b`` is ``return a if <test> else b``, a value the pool picked
    (``frozenset(range(4))`` for an SWA pool, ``frozenset()`` else: which layers are SWA)."""
    if not decided & TYPE_TESTS or decided & GATED or _choice_kind(value_node, owner) or \
            not _literal_made(value_node):
        return CLEAN  # (literals and None: ``controlled`` says what they are; under a stored
        # flag what is made is the gate's finding; data read in a branch says what it is)
    return SWA | (decided & (STALE | KIND)) | (PICKED if not decided & TYPE else CLEAN)


LITERAL_MAKERS = frozenset(("frozenset", "set", "tuple", "list", "dict", "range"))


def _literal_made(node: ast.AST) -> bool:
    """``frozenset(range(4))``, ``(0, 2)``, ``[]``, ``FlatSpace()``: a value made of literals
    alone (no name nor attribute read but a class made of them): what it is, only the decision
    returning it says (a strategy object a factory returns for one kind of pool)."""
    classes = {id(part.func) for part in nodes_under(node) if type(part) is ast.Call and type(
        part.func) is ast.Name and _is_class_name(part.func)}
    for part in nodes_under(node):
        kind = type(part)
        if kind is ast.Call:
            if type(part.func) is not ast.Name or part.func.id not in LITERAL_MAKERS and (
                    id(part.func) not in classes):
                return False
        elif kind is ast.Name and id(part) in classes:
            continue
        elif kind is ast.Name:
            if part.id not in LITERAL_MAKERS:
                return False
        elif kind is ast.Attribute or kind in (ast.Lambda, ast.NamedExpr, ast.Await):
            return False
    return not _is_none(node)


def _enumerated(target: ast.AST, iterated: ast.AST) -> Optional[ast.AST]:
    """The index of ``i, x`` bound from ``enumerate(...)``: a count, holding nothing of what is
    enumerated; None for any other loop."""
    if type(iterated) is ast.Call and last_name(iterated.func) == "enumerate" and len(
            target.elts) == 2 and not any(type(t) is ast.Starred for t in target.elts):
        return target.elts[0]
    return None


def picked(value: Taint, decided: Taint) -> Taint:
    """An element admitted into a collection by ``decided`` (a comprehension's filter, the
    decisions around a ``yield``): under a pool decision it is a choice made by it (the ids of
    the SWA layers when the pool is SWA), whatever it is; under a stale flag, made under it.
    Only a decision on kept state picks (a type test of a layer object decides nothing of the
    pool, nor does one of the live pool: it is made again where it is used)."""
    if decided & TYPE_TESTS and decided & STALE:
        value |= CHOICE | (decided & (STALE | KIND))
    if decided & GATED:
        value |= CHOICE | (decided & (GATED | RUNNER_STALE))
    return value


_VISITORS: Dict[type, object] = {}  # node type -> MethodFlow's visitor of it
# a call of a name bound to a function -> {what it is bound to: the call of that}: one node per
# call and binding, so what the flow keys by node is the same at every visit (``rebound_call``)
_REBOUND: "weakref.WeakKeyDictionary[ast.Call, dict]" = weakref.WeakKeyDictionary()

# the operator module's functions that are a test spelled as a call: what each spells
OPERATORS = {"not_": ast.Not, "truth": None, "is_": ast.Is, "is_not": ast.IsNot, "eq": ast.Eq,
             "ne": ast.NotEq, "contains": ast.In}
BARE_OPERATORS = frozenset(("not_", "is_not"))  # imported bare, and named so by nothing else


def _operator_name(func: ast.AST) -> str:
    """``"not_"`` for ``operator.not_`` (or ``not_`` imported bare): a test spelled as a call."""
    kind = type(func)
    if kind is ast.Attribute:
        name = func.attr if type(func.value) is ast.Name and func.value.id == "operator" else ""
    else:
        name = func.id if kind is ast.Name and func.id in BARE_OPERATORS else ""
    return name if name in OPERATORS else ""


def _operator_spelled(call: ast.Call) -> Optional[ast.AST]:
    """``not x`` for ``operator.not_(x)``, ``bool(x)`` for ``truth(x)``, ``a is b`` for
    ``is_(a, b)``, ``b in a`` for ``contains(a, b)``, placed at the call."""
    if call.keywords:
        return None
    op, args = OPERATORS[_operator_name(call.func)], call.args
    if op is ast.Not or op is None:
        if len(args) != 1:
            return None
        made = ast.UnaryOp(op=ast.Not(), operand=args[0]) if op else ast.Call(
            func=ast.Name(id="bool", ctx=ast.Load()), args=[args[0]], keywords=[])
    elif len(args) != 2:
        return None
    else:
        left, right = (args[1], args[0]) if op is ast.In else (args[0], args[1])
        made = ast.Compare(left=left, ops=[op()], comparators=[right])
    return ast.copy_location(made, call)


def _plain_test(node: ast.AST) -> bool:
    """A test (a comparison, a type or duck test, ``not``/``and``/``or`` of them) that calls
    nothing but builtins and lookups that only read (``isinstance``, ``hasattr``, ``.get``):
    evaluated again where a decision tests the local holding it, nothing else happens."""
    if type(node) not in _TESTS:
        return False
    return not any(type(part) is ast.Call and not _reads_only(part) or type(part) in _BINDING
                   for part in nodes_under(node))


_TESTS = (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Call)
_BINDING = (ast.NamedExpr, ast.Lambda)


# calls a held test may make and still be evaluated again where the local is tested: builtin
# tests and reads, and lookups in a container (none of them stores nor runs code of the class)
READING_FUNCTIONS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "bool", "len",
                               "type", "getattr"})
READING_METHODS = frozenset({"get", "keys", "values", "items", "startswith", "endswith",
                             "__contains__"})


def _reads_only(call: ast.Call) -> bool:
    """A builtin test or read, a lookup, or a method of the class (what it returns is asked
    of the class's summary again: ``ok = self._pool_kind() == "swa"``)."""
    func = call.func
    if type(func) is ast.Name:
        return func.id in READING_FUNCTIONS
    return type(func) is ast.Attribute and (func.attr in READING_METHODS or is_self(func.value))


def tested_operands(test: ast.AST) -> Iterator[Tuple[ast.AST, str]]:
    """``(value, use)`` for what a condition tests itself: the condition or an ``and``/``or``
    operand and the argument of ``bool`` (``"truth"``: its ``__bool__`` runs), a side of ``is
    (not) None``, the argument of ``isinstance``/``callable``/``hasattr`` (``"whole"``; both are
    in ``WHOLE_USES``), the container of ``in`` (``"element"``: what it holds is searched), the
    operands of an ordering or equality comparison (``"compared"``)."""
    kind = type(test)
    if kind is ast.BoolOp:
        for value in test.values:
            yield from tested_operands(value)
    elif kind is ast.UnaryOp and isinstance(test.op, ast.Not):
        yield from tested_operands(test.operand)
    elif kind is ast.Compare and all(type(op) in _ORDERING for op in test.ops):
        for part in (test.left, *test.comparators):  # 0 < self.swa_capacity <= n
            yield from _whole(part, "compared")
    elif kind is ast.Compare and len(test.comparators) == 1:
        if isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            for part in (test.left, *test.comparators):
                yield from _whole(part)
        elif isinstance(test.ops[0], (ast.In, ast.NotIn)):
            yield from _whole(test.comparators[0], "element")
    elif kind is ast.Call and last_name(test.func) in _WHOLE_TESTS:
        for arg in test.args[:1]:
            yield from _whole(arg, "truth" if last_name(test.func) == "bool" else "whole")
    else:
        yield from _whole(test, "truth")


WHOLE_USES = frozenset(("whole", "truth"))  # the value itself tested (``GateEvent.use``)
# calls testing their first argument itself: its type, presence of a name, callability, truth
_WHOLE_TESTS = ("isinstance", "callable", "bool", "hasattr")
# comparisons whose operands a decision tests as quantities (``"compared"``: a capacity kept
# past the swap decides wrongly there, as it does tested whole)
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _whole(node: ast.AST, use: str = "whole") -> Iterator[Tuple[ast.AST, str]]:
    """``node`` tested itself; through a read with a default (``getattr(layer, "x", self.x)``)
    the default is too: it is what the read gives when the object lacks the attribute; so is
    what a walrus binds (``(swa := self.swa_kv) is not None`` tests ``self.swa_kv``)."""
    yield node, use
    if type(node) is ast.NamedExpr:
        yield from _whole(node.value, use)
    elif type(node) is ast.Call and last_name(node.func) == "type" and len(node.args) == 1:
        yield from _whole(node.args[0], "whole")  # type(self.x) is C: x's type tested
    fallback = _fallback(node)
    if fallback is not None:
        yield from _whole(fallback, use)


def _made_from(func: ast.AST, args: list, owner: FlowOwner) -> Optional[list]:
    """The fields ``Rec._make((a, b))`` (or ``cls._make([...])`` in a factory) spells out."""
    if type(func) is not ast.Attribute or func.attr != "_make" or len(args) != 1 or not (
            owner.is_record_type(func.value) or last_name(func.value) == "cls"):
        return None
    shown = args[0]
    if isinstance(shown, (ast.Tuple, ast.List)) and not any(
            isinstance(el, ast.Starred) for el in shown.elts):
        return list(shown.elts)
    return None


FUNCTIONAL = frozenset({"map", "filter", "reduce"})


def _comprehended(call: ast.Call) -> Optional[tuple]:
    """``(comprehension, reduce, start)`` that ``map``/``filter``/``reduce`` of a lambda, a
    named function (or ``filter(None, ...)``) over one iterable computes: ``map(f, xs)`` is
    ``[f's body for x in xs]``, ``filter(f, xs)`` is ``[x for x in xs if f's body]``,
    ``reduce(f, xs, start)`` the reduction of ``[f's body for x in xs]`` (a lambda's
    accumulator is what earlier elements made; a function's first step is taken on
    ``start``) with ``start``; None for any other call."""
    name, args = last_name(call.func), call.args
    if call.keywords or len(args) != (3 if name == "reduce" and len(args) == 3 else 2):
        return None
    function, iterable = args[0], args[1]
    start = args[2] if len(args) == 3 else None
    if name == "filter" and type(function) is ast.Constant and function.value is None:
        param, body = "_element", None
    elif type(function) is ast.Lambda and not function.args.vararg and len(
            function.args.args) == (2 if name == "reduce" else 1):
        param, body = function.args.args[-1].arg, function.body
    elif type(function) in (ast.Name, ast.Attribute):  # map(probe, pools), reduce(getattr,
        param = "_element"  # names, pool): the function called on each element (reduce's
        element = ast.copy_location(ast.Name(id=param, ctx=ast.Load()), call)  # first step:
        # on the start, else on the first element)
        body = ast.copy_location(ast.Call(func=function, args=[
            start or element, element] if name == "reduce" else [element], keywords=[]), call)
    else:
        return None
    kept = ast.Name(id=param, ctx=ast.Load())
    elt, ifs = (body, []) if name != "filter" else (kept, [body if body is not None else kept])
    made = ast.ListComp(elt=elt, generators=[ast.comprehension(
        target=ast.Name(id=param, ctx=ast.Store()), iter=iterable, ifs=ifs, is_async=0)])
    for node in (kept, made, made.generators[0].target):
        ast.copy_location(node, call)
    # (a reduction by a lambda is the decision it folds; by a function, what its last step
    # returned: reduce(getattr, names, pool) is the attribute walked to)
    reduced = "" if name != "reduce" else "all" if type(function) is ast.Lambda else "element"
    return made, reduced, start


def _submitted(func: ast.AST, args: list, at: ast.AST) -> Optional[ast.Call]:
    """``fn(*rest)`` for ``executor.submit(fn, *rest)`` (and the other ``SUBMITTING`` calls):
    the call they run, whose result their future gives."""
    index = SUBMITTING[func.attr]
    if len(args) <= index or type(args[index]) is ast.Starred:
        return None
    return ast.copy_location(ast.Call(func=args[index], args=args[index + 1:], keywords=[]), at)


def _copied_record(func: ast.AST, args: list) -> Optional[ast.AST]:
    """The record a call copies, with fields replaced by its keywords: ``replace(rec, ...)``
    and ``copy.copy(rec)`` (of ``dataclasses``/``copy`` or imported bare), ``rec._replace(...)``."""
    if last_name(func) in RECORD_COPIERS and len(args) == 1 and (
            type(func) is ast.Name or last_name(getattr(func, "value", None)) in (
                "dataclasses", "copy", "attrs", "attr")):
        return args[0]
    if type(func) is ast.Attribute and func.attr in RECORD_COPY_METHODS and not args:
        return func.value
    return None


def _fallback(node: ast.AST) -> Optional[ast.AST]:
    """The default of an attribute read that has one: ``getattr(obj, name, default)``,
    ``vars(obj).get(name, default)``: the value the read gives when ``obj`` lacks it."""
    if type(node) is not ast.Call or len(node.args) != 3 - (type(node.func) is ast.Attribute):
        return None
    func = node.func
    if type(func) is ast.Name and func.id == "getattr":
        return node.args[2]
    if type(func) is ast.Attribute and func.attr == "get" and namespace_of(func.value) is not None:
        return node.args[1]
    return None


def _keep(table: dict, name: str, value) -> None:
    """``table[name] = value``, or no entry for ``name`` when ``value`` is None."""
    if value is None:
        table.pop(name, None)
    else:
        table[name] = value


def _merge(into: Dict[str, Taint], env: Dict[str, Taint]) -> None:
    for name, value in env.items():
        known = into.get(name)
        if known is not value:  # members are singletons: most names are unchanged
            into[name] = value if known is None else known | value


def entry_key(node: Optional[ast.AST]):
    """The constant key of a dict entry (``"page"``, ``0``), or None: a key of no dot, bracket
    or wildcard, so its ``entry_path`` is no attribute path nor a pattern."""
    if type(node) is not ast.Constant or type(node.value) not in (str, int):
        return None
    text = str(node.value)
    return None if any(c in text for c in ".[]*?") else node.value


def entry_path(attr: str, key) -> str:
    """How the entry ``self.<attr>[key]`` is named among the class's facts."""
    return f"{attr}[{key!r}]"


def is_runner_copy(bits: Taint) -> bool:
    """A runner-level SWA flag kept as it is (a flag: KVP002's), not a value it chose."""
    return bool(bits & RUNNER) and not bits & (STATE | CHOICE | KIND | GATED | TYPE)


def _through_pool(node: ast.AST) -> bool:
    """``model_runner.token_to_kv_pool``: a pool reached from the runner (its own ``is_swa``
    answers a type question about it, not about the runner's config)."""
    while isinstance(node, ast.Attribute):
        if node.attr == ACTIVE_POOL:
            return True
        node = node.value
    return False


_HELD_POOL = f".{ACTIVE_POOL}"  # the tail of ``<held>.token_to_kv_pool``, tested first
_HELD_TAIL = len(_HELD_POOL)


def _backed_pool(path: str, owner: FlowOwner) -> bool:
    """``self.backend.token_to_kv_pool`` in a helper object holding the backend that made it:
    the active pool, read through the back-reference."""
    holder, _, name = path.partition(".")
    return name == ACTIVE_POOL and owner.backs_onto(holder)


def _current_backend(node: ast.AST) -> bool:
    """``get_attn_backend()`` / ``get_forward_context().attn_backend``: the backend of the
    forward under way."""
    if isinstance(node, ast.Attribute) and node.attr == CONTEXT_BACKEND:
        node = node.value
        return isinstance(node, ast.Call) and last_name(node.func) == CONTEXT_ACCESSOR
    return isinstance(node, ast.Call) and last_name(node.func) in BACKEND_ACCESSORS


def _global_key(node: ast.AST) -> Optional[str]:
    """``"NAME"`` for ``globals()["NAME"]``."""
    if type(node) is ast.Subscript and type(node.value) is ast.Call and last_name(
            node.value.func) == "globals" and not node.value.args:
        return const_str(node.slice)
    return None


def untrusted(value: Taint) -> bool:
    """Stored state a gate must not trust: a stale decision or a value it picked. What is only
    made under one (a buffer, a container filled under a flag) is KVP001's: a test of its
    shape, presence or keys decides nothing new."""
    if value & GATED and value & RECORD and not value & CHOICE:
        return False  # (a list a stale flag filtered is picked by it: a choice)
    return bool(value & CHOOSERS or value & RUNNER and not value & GATED)


def _terminates(block: list) -> bool:
    """The block ends by leaving early: what follows runs only when it was not entered (a
    ``raise`` is no alternative: nothing is kept when it runs)."""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Continue, ast.Break))


def empty_value(value: Optional[ast.AST]) -> bool:
    """``None``, ``{}``, ``[]``, ``()``, ``set()``, ``dict()``: a memo emptied, nothing made."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not getattr(value, "keys", None) and not getattr(value, "elts", None)
    return isinstance(value, ast.Call) and not value.args and not value.keywords and last_name(
        value.func) in ("dict", "list", "set", "OrderedDict")


def _is_none(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def kept_decision(value: Taint) -> Taint:
    """What a choice under a stored flag carries: made under it (``GATED``) and, for a literal
    picked by it, its decision, when the flag is a stale decision (a mirror of the resolved
    pool is not: KVP004's business)."""
    if not value & STALE or not value & DECISIVE:
        return CLEAN
    return GATED | STALE | (value & DECIDERS) | (TYPE if value & CHOICE else CLEAN)


def _is_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and last_name(node.func) == "super"


def names_own_class(node: ast.AST) -> bool:
    """``cls``, ``type(self)``, ``self.__class__``: the class of the instance at hand."""
    kind = type(node)
    if kind is ast.Name:
        return node.id == "cls"
    if kind is ast.Call:
        return last_name(node.func) == "type" and len(node.args) == 1 and is_self(node.args[0])
    return kind is ast.Attribute and node.attr == "__class__" and is_self(node.value)


_POOL_TYPE_CALLS = ("isinstance", "issubclass", "hasattr", "type")


def _tests_active_pool(test: ast.AST, locals_: set) -> bool:
    """``test`` tests the type of ``self.token_to_kv_pool`` (``isinstance``, ``hasattr``,
    ``type(...)``), or of one of ``locals_`` bound to it: a decision on the active pool,
    whatever its taint says of the read."""
    return any(type(node) is ast.Call and last_name(node.func) in _POOL_TYPE_CALLS and node.args
               and (self_path(node.args[0]) == ACTIVE_POOL or type(node.args[0]) is ast.Name
                    and node.args[0].id in locals_) for node in nodes_under(test))


def _picked_object(node: Optional[ast.AST]) -> bool:
    """An object a branch of a pool type test picks or has made, holding no pool data itself:
    one of ours (``self.swa_backend``), one built (``SwaPlanner(...)``) or allocated
    (``torch.zeros(...)``). Which one is there is that test's verdict; a value computed from
    what the pool reports (its layout, its sizes) is no choice and stays geometry."""
    kind = type(node)
    if kind is ast.Attribute:
        return self_path(node) is not None
    return kind is ast.Call and (_is_class_name(node.func) or last_name(node.func) in ALLOCATING)


def _is_class_name(func: ast.AST) -> bool:
    """``SwaState(...)`` / ``mod.SwaState(...)``: a constructor, by the CapWords convention."""
    return is_class_name(last_name(func))


def _choice_kind(node: Optional[ast.AST], owner: FlowOwner) -> Taint:
    """What a value picked (not computed) under a pool decision carries: ``True``/``False``
    are that decision (``TYPE``); another literal (but None), a tuple of them, a class, a
    class's member or a function of the module is a choice made by it (``CHOICE``); anything
    else, nothing."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return TYPE
        return CHOICE if node.value is not None else CLEAN
    if isinstance(node, (ast.Tuple, ast.List)):
        return CHOICE if node.elts and all(_choice_kind(el, owner) for el in node.elts) else CLEAN
    if isinstance(node, ast.UnaryOp):
        return _choice_kind(node.operand, owner) and CHOICE
    if isinstance(node, ast.BinOp):  # Caps.SWA | Caps.MAPPED: members combined, still picked
        return CHOICE if _choice_kind(node.left, owner) and _choice_kind(node.right, owner) else (
            CLEAN)
    if isinstance(node, ast.Name) and (_is_class_name(node) or owner.is_module_global(node.id)):
        return CHOICE

    if isinstance(node, ast.Attribute) and (_names_class(node.value) or is_self(
            node.value) and node.attr.isupper()):
        return CHOICE  # an enum member or class constant: KVMode.SWA, cls.SWA, type(self).SWA,
        # self.KIND_SWA (a constant of the class read through the instance)
    if isinstance(node, ast.Subscript) and const_str(node.slice) and _names_class(node.value):
        return CHOICE  # an enum member by name: KVMode["SWA"]
    return CLEAN


def _names_class(node: ast.AST) -> bool:
    """``KVMode`` (CapWords), ``cls`` (a classmethod's class), ``type(self)``, ``self.__class__``:
    what a member or constant read off it is one of the class's own."""
    if isinstance(node, ast.Name):
        return node.id == "cls" or _is_class_name(node)
    if isinstance(node, ast.Call):
        return last_name(node.func) == "type" and len(node.args) == 1 and is_self(node.args[0])
    return isinstance(node, ast.Attribute) and node.attr == "__class__" and is_self(node.value)


def _pattern_tests_type(pattern: ast.AST, owner: FlowOwner) -> bool:
    """A ``case SWAKVPool():`` class pattern (at any depth of the pattern)."""
    return any(isinstance(node, ast.MatchClass) and owner.type_names_swa(node.cls)
               for node in ast.walk(pattern))
