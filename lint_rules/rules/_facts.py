"""Typed facts about one file's attention backends, computed once and queried by every rule.

``analyse(tree, options)`` finds the backend classes and runs ``_flow.MethodFlow`` over their
methods; the result is a ``FileFacts`` of ``ClassFacts`` holding ``Store`` (a ``self.<attr>``
sink and what it holds), ``Gate`` (control flow decided by ``self.<name>``) and runner-pool
reads, plus ``flag()``: whether a name is a boolean SWA flag that can go stale, and whether its
definition is exactly the pool test. Rules never import each other: what two rules share is here.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional

from lint_rules.options import Options
from lint_rules.rules._flow import (
    DECISION,
    MIRROR,
    RUNNER,
    STALE,
    TYPE,
    MethodFlow,
    is_self,
    last_name,
    params_of,
    self_attr,
)
from lint_rules.rules._vocab import (
    ALLOCATOR,
    ALLOCATOR_POOL,
    BACKEND_SUFFIX,
    CACHED_DECORATORS,
    DEFAULT_FLAG,
    PER_FORWARD_PARAMS,
    PER_FORWARD_WORDS,
)

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Store:
    """``self.<attr> = value`` (or ``setattr``, or a cached property) and what it holds."""

    attr: str
    node: ast.AST  # what a finding points at
    statement: Optional[ast.stmt]  # the Assign/AnnAssign, None for setattr / cached property
    value: Optional[ast.expr]
    bits: int
    method: str
    sink: bool  # stored outside a per-forward method (or lazily): kept across forwards
    alone: bool  # the statement is the only one in its block
    resolver: bool  # stored inside a method that consults the allocator (the fix itself)


@dataclass(frozen=True)
class Gate:
    """Control flow decided by ``self.<name>`` (kind ``attr``), a local alias of it (``alias``)
    or a same-class helper call ``self.<name>()`` (``call``)."""

    name: str
    node: ast.AST  # what a finding points at
    target: ast.AST  # what a rewrite replaces: the read, or the enclosing ``not``
    negated: bool
    method: str
    kind: str


@dataclass(frozen=True)
class Flag:
    """A name that gates as a boolean SWA flag; ``exact`` is its one definition when that is
    exactly ``self.<pool_attr> is not None`` (``polarity`` True) or ``is None`` (False)."""

    name: str
    exact: Optional[Store] = None
    polarity: bool = True


@dataclass
class ClassFacts:
    """One attention backend class of the file."""

    name: str
    node: ast.ClassDef
    bases: tuple
    methods: Dict[str, ast.AST] = field(default_factory=dict)
    properties: Dict[str, bool] = field(default_factory=dict)  # name -> cached?
    returns: Dict[str, int] = field(default_factory=dict)
    stores: List[Store] = field(default_factory=list)
    gates: List[Gate] = field(default_factory=list)
    runner_reads: List[ast.Attribute] = field(default_factory=list)
    family: List["ClassFacts"] = field(default_factory=list)  # self, then same-file relatives


def backend_classes(tree: ast.AST, options: Options) -> List[ast.ClassDef]:
    """Classes (at any statement depth) with a ``...Backend`` or configured base name, or a
    base that is such a class of the same file."""
    classes = list(_class_defs(getattr(tree, "body", ())))
    names: set = set()
    grew = True
    while grew:  # a class may derive from a local backend defined anywhere in the file
        grew = False
        for node in classes:
            if node.name not in names and any(
                base.endswith(BACKEND_SUFFIX) or base in options.backend_bases or base in names
                for base in map(last_name, node.bases)
            ):
                names.add(node.name)
                grew = True
    return [node for node in classes if node.name in names]


def _class_defs(statements) -> Iterator[ast.ClassDef]:
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            yield statement
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                yield from _class_defs(inner)


def _record_types(tree: ast.AST) -> frozenset:
    """Dataclasses, named tuples and ``namedtuple(...)`` results defined in the file."""
    found = set()
    for statement in getattr(tree, "body", ()):
        if isinstance(statement, ast.ClassDef):
            marks = [last_name(getattr(d, "func", d)) for d in statement.decorator_list]
            marks += [last_name(b) for b in statement.bases]
            if {"dataclass", "NamedTuple", "TypedDict"} & set(marks):
                found.add(statement.name)
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
            if last_name(statement.value.func) in ("namedtuple", "make_dataclass"):
                found.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return frozenset(found)


class ClassFlow:
    """Runs the data flow over one class and fills its ``ClassFacts``."""

    def __init__(self, facts: ClassFacts, options: Options, record_types: frozenset,
                 functions: Dict[str, ast.AST]) -> None:
        self.facts, self.name = facts, facts.name
        self.pool_attr = options.pool_attr
        self.record_types, self.functions = record_types, functions
        self.function_returns: Dict[tuple, int] = {}
        self.sink_env: Dict[str, int] = {}
        self.forward_env: Dict[str, int] = {}
        self.recording = False
        self._returning: set = set()
        self.per_forward = _per_forward(facts.methods)
        self.resolvers = {
            name for name, fn in facts.methods.items()
            if name != "__init__" and _mentions(fn, (ALLOCATOR, ALLOCATOR_POOL))
        }

    def run(self) -> None:
        order = sorted(self.facts.methods, key=lambda n: (n != "__init__",))
        for recording in (False, True):  # the second round sees every store of the first
            self.recording = recording
            self.facts.returns.clear()
            self.function_returns.clear()
            for name in order:
                function = self.facts.methods[name]
                if name not in self.facts.properties:
                    flow = MethodFlow(self, function, name)
                    flow.run(function.body)
                    if recording and name not in self.resolvers:
                        self.facts.returns.setdefault(name, flow.returned)
        for name, cached in self.facts.properties.items():
            self.returns(name)
            if cached:
                self._cached_store(name)

    def _cached_store(self, name: str) -> None:
        function = self.facts.methods[name]
        bits = self.returns(name)
        self.facts.stores.append(Store(name, function, None, None, bits, name, True, False,
                                       name in self.resolvers))

    # -- queries from MethodFlow ----------------------------------------------------------------
    def is_per_forward(self, name: str) -> bool:
        return name in self.per_forward

    def returns(self, name: str) -> int:
        """What a same-class method (or property) returns; resolvers return nothing stale."""
        owner = next((c for c in self.facts.family if name in c.methods), None)
        if owner is None or name in self.resolvers or name in self._returning:
            return 0
        if owner is not self.facts:
            return owner.returns.get(name, 0)
        if name not in self.facts.returns:
            self._returning.add(name)
            flow = MethodFlow(self, self.facts.methods[name], name)
            flow.run(self.facts.methods[name].body)
            self._returning.discard(name)
            cached = self.facts.properties.get(name, False)
            self.facts.returns[name] = flow.returned | (STALE if cached and flow.returned else 0)
        return self.facts.returns[name]

    def attr_value(self, attr: str) -> int:
        """What reading ``self.<attr>`` yields: its stores outside per-forward methods (and stale
        per-forward ones), or a property's value."""
        if attr == self.pool_attr:
            return 0
        for cls in self.facts.family:
            if attr in cls.properties:
                return self.returns(attr)
        bits = self.sink_env.get(attr, 0)
        stale_forward = self.forward_env.get(attr, 0)
        bits |= stale_forward if stale_forward & STALE else 0
        for cls in self.facts.family[1:]:
            bits |= _env_of(cls, attr)
        return bits | STALE if bits else 0

    def store(self, flow: MethodFlow, attr, node, statement, value, bits: int) -> None:
        if flow.deferred:
            return
        sink = not flow.per_forward or attr in flow.guards
        env = self.sink_env if sink else self.forward_env
        env[attr] = env.get(attr, 0) | bits
        if self.recording:
            self.facts.stores.append(Store(attr, node, statement, value, bits, flow.name, sink,
                                           flow.alone, flow.name in self.resolvers))

    def runner_pool_read(self, flow: MethodFlow, node: ast.Attribute) -> None:
        """``self.model_runner.token_to_kv_pool`` read at call time: the runner's own pool."""
        if self.recording and not flow.deferred and flow.name != "__init__":
            if flow.per_forward and self_attr(node.value) and flow.name not in self.resolvers:
                if all(read is not node for read in self.facts.runner_reads):
                    self.facts.runner_reads.append(node)


def _env_of(cls: ClassFacts, attr: str) -> int:
    return _union(s.bits for s in cls.stores if s.attr == attr and s.sink)


def _union(values) -> int:
    result = 0
    for value in values:
        result |= value
    return result


def _mentions(node: ast.AST, names: tuple) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr in names)
        or (isinstance(n, ast.Name) and n.id in names)
        for n in ast.walk(node)
    )


def _self_calls(function: ast.AST) -> set:
    return {
        n.func.attr for n in ast.walk(function)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and is_self(n.func.value)
    }


def _per_forward(methods: Dict[str, ast.AST]) -> set:
    """Methods that run on every forward: named so, taking a batch, or called from one."""
    found = {
        name for name, fn in methods.items()
        if name != "__init__" and (
            any(word in name for word in PER_FORWARD_WORDS)
            or any(w in p for p in params_of(fn) for w in PER_FORWARD_PARAMS)
        )
    }
    calls = {name: _self_calls(fn) for name, fn in methods.items()}
    grew = True
    while grew:
        grew = False
        for caller in list(found):
            for callee in calls.get(caller, ()):
                if callee in methods and callee not in found and callee != "__init__":
                    found.add(callee)
                    grew = True
    return found


def _class_facts(node: ast.ClassDef) -> ClassFacts:
    facts = ClassFacts(node.name, node, tuple(map(last_name, node.bases)))
    for statement in node.body:
        if isinstance(statement, FUNCTIONS) and statement.name not in facts.methods:
            facts.methods[statement.name] = statement
            marks = {last_name(getattr(d, "func", d)) for d in statement.decorator_list}
            if "property" in marks:
                facts.properties[statement.name] = False
            elif marks & set(CACHED_DECORATORS):
                facts.properties[statement.name] = True
    return facts


# -- gates -------------------------------------------------------------------------------------
class _GateFinder:
    """Every condition in one method that is decided by ``self.<name>``, an alias or a call."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.found: Dict[int, Gate] = {}
        self.aliases: Dict[str, List[ast.Attribute]] = {}
        self.alias_tests: set = set()

    def scan(self, function: ast.AST) -> List[Gate]:
        for node in ast.walk(function):
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                self.condition(node.test)
            elif isinstance(node, ast.BoolOp):
                for value in node.values:
                    self.condition(value)
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.condition(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name) and isinstance(value, ast.Attribute):
                    if is_self(value.value):
                        self.aliases.setdefault(target.id, []).append(value)
        for name in self.alias_tests:
            for read in self.aliases.get(name, ()):
                self.found.setdefault(id(read), Gate(read.attr, read, read, False, self.method,
                                                     "alias"))
        return list(self.found.values())

    def condition(self, node: ast.AST) -> None:
        negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        inner = node.operand if negated else node
        if isinstance(inner, ast.Name):
            self.alias_tests.add(inner.id)
        elif isinstance(inner, ast.Attribute) and is_self(inner.value):
            gate = Gate(inner.attr, inner, node, negated, self.method, "attr")
            if negated or id(inner) not in self.found:
                self.found[id(inner)] = gate
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
            if is_self(inner.func.value):
                gate = Gate(inner.func.attr, inner, node, negated, self.method, "call")
                self.found.setdefault(id(inner), gate)


# -- the file ----------------------------------------------------------------------------------
class FileFacts:
    """All backend classes of one file, with the queries the rules share."""

    def __init__(self, tree: ast.AST, options: Options) -> None:
        self.tree, self.options = tree, options
        self.classes: List[ClassFacts] = []
        self.by_name: Dict[str, ClassFacts] = {}
        self._stored_names: Optional[Dict[tuple, int]] = None

    def relatives(self, cls: ClassFacts) -> List[ClassFacts]:
        """The class, its same-file bases and its same-file subclasses."""
        found = list(cls.family)
        for other in self.classes:
            if other not in found and cls in other.family:
                found.append(other)
        return found

    def provides_pool(self, cls: ClassFacts) -> bool:
        """The class or a same-file base assigns ``self.<pool_attr>``."""
        pool = self.options.pool_attr
        return any(s.attr == pool for c in cls.family for s in c.stores)

    def stores_of(self, cls: ClassFacts, name: str) -> List[Store]:
        return [s for c in self.relatives(cls) for s in c.stores if s.attr == name]

    def times_stored(self, name: str, foreign_only: bool = False) -> int:
        """How often ``<anything>.<name>`` is assigned (or ``setattr``-ed) in the whole file;
        with ``foreign_only``, only on objects other than ``self`` (writes from outside)."""
        if self._stored_names is None:
            counts: Dict[tuple, int] = {}
            for node in ast.walk(self.tree):
                key = None
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    key = (node.attr, is_self(node.value))
                elif isinstance(node, ast.Call) and last_name(node.func) == "setattr":
                    attr = node.args[1] if len(node.args) > 1 else None
                    if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                        key = (attr.value, is_self(node.args[0]))
                if key is not None:
                    counts[key] = counts.get(key, 0) + 1
            self._stored_names = counts
        foreign = self._stored_names.get((name, False), 0)
        return foreign if foreign_only else foreign + self._stored_names.get((name, True), 0)

    def flag(self, cls: ClassFacts, name: str) -> Optional[Flag]:
        """``name`` as a stale boolean SWA flag of ``cls``; None when it is not one (or live)."""
        family = self.relatives(cls)
        kinds = [c.properties[name] for c in family if name in c.properties]
        if kinds:  # a property: live unless it returns a decision made from stale state
            bits = next(c.returns.get(name, 0) for c in family if name in c.properties)
            stale = bits & DECISION and (kinds[0] or bits & STALE)
            return Flag(name) if stale else None
        stores = self.stores_of(cls, name)
        sinks = [s for s in stores if s.sink]
        decisive = TYPE | RUNNER  # a stored mirror alone is KVP004's (opt-in) business
        if any(s.bits & decisive for s in sinks) or any(
            s.bits & decisive and s.bits & STALE for s in stores if not s.sink
        ):
            return self._exactness(Flag(name), sinks)
        if name != DEFAULT_FLAG and name not in self.options.swa_flags:
            return None
        forward = [s for s in stores if not s.sink]
        if forward and all(_constant(s.value) for s in sinks):
            return None  # recomputed on every forward from the live pool
        return self._exactness(Flag(name), sinks)

    def returns_flag(self, cls: ClassFacts, name: str) -> bool:
        """A same-class helper ``self.<name>()`` returning a decision made from stale state."""
        for relative in self.relatives(cls):
            if name in relative.methods and name not in relative.properties:
                bits = relative.returns.get(name, 0)
                return bool(bits & DECISION and bits & STALE)
        return False

    def _exactness(self, flag: Flag, sinks: List[Store]) -> Flag:
        if len(sinks) != 1 or self.times_stored(flag.name) != 1:
            return flag
        store = sinks[0]
        polarity = mirror_polarity(store.value, self.options.pool_attr)
        if polarity is None or store.bits & ~MIRROR or store.statement is None:
            return flag
        pool_stores = [s for c in self.classes for s in c.stores  # every backend's
                       if s.attr == self.options.pool_attr]
        line = store.statement.lineno
        if self.times_stored(self.options.pool_attr, foreign_only=True) or not all(
            s.method == store.method and s.node.lineno < line for s in pool_stores
        ):
            return flag  # the pool may be re-resolved after the mirror was taken
        return Flag(flag.name, store, polarity)


def _constant(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant)


def mirror_polarity(value: Optional[ast.AST], pool_attr: str) -> Optional[bool]:
    """True for ``self.<pool> is not None`` / ``bool(self.<pool>)``, False for ``is None``."""
    if isinstance(value, ast.Compare) and len(value.ops) == 1:
        none = value.comparators[0]
        if self_attr(value.left) == pool_attr and isinstance(none, ast.Constant):
            if none.value is None and isinstance(value.ops[0], (ast.Is, ast.IsNot)):
                return isinstance(value.ops[0], ast.IsNot)
        return None
    if isinstance(value, ast.Call) and last_name(value.func) == "bool" and len(value.args) == 1:
        return True if self_attr(value.args[0]) == pool_attr else None
    return None


def analyse(tree: ast.AST, options: Options) -> FileFacts:
    """The facts for every backend class of ``tree`` (bases before subclasses)."""
    facts = FileFacts(tree, options)
    nodes = backend_classes(tree, options)
    if not nodes:
        return facts
    record_types = _record_types(tree)
    functions = {  # a module-level resolver that asks the allocator is the fix: not followed
        node.name: node for node in getattr(tree, "body", ())
        if isinstance(node, FUNCTIONS) and not _mentions(node, (ALLOCATOR, ALLOCATOR_POOL))
    }
    for node in nodes:
        cls = _class_facts(node)
        facts.classes.append(cls)
        facts.by_name.setdefault(cls.name, cls)
    for cls in facts.classes:
        cls.family = _family(cls, facts.by_name)
    for cls in sorted(facts.classes, key=lambda c: len(c.family)):
        ClassFlow(cls, options, record_types, functions).run()
        for name, function in cls.methods.items():
            cls.gates.extend(_GateFinder(name).scan(function))
    return facts


def _family(cls: ClassFacts, by_name: Dict[str, ClassFacts]) -> List[ClassFacts]:
    found, todo = [cls], list(cls.bases)
    while todo:
        base = by_name.get(todo.pop(0))
        if base is not None and base not in found:
            found.append(base)
            todo.extend(base.bases)
    return found
