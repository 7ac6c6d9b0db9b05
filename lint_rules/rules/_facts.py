"""Typed facts about one file's attention backends, computed once and queried by every rule.

``analyse(tree, options, package)`` finds the backend classes (and the mixins and bases they
inherit from), runs the taint model of ``_flow`` over their methods and returns a ``FileFacts``
of ``ClassFacts``: ``Store`` (a sink: state kept past the call, and what it holds), ``Gate`` (a
decision reading ``self`` state) and runner-pool reads, plus the queries rules share
(``flag()``: whether a name is a stale boolean SWA flag, and whether its definition is exactly
the pool test). Rules never import each other: what two rules share is here.

A class is analysed by passes over all its methods; each pass is a fresh ``_Pass`` that reads
what the previous pass found the attributes to hold (``AttrEnv``) and returns what it finds, so
no pass changes another's state. Passes repeat until the attributes hold the same (usually two:
one to find, one to confirm). With a ``package`` index, bases, mixins and helpers defined in
other modules of the linted package are followed too (``lint_rules.package``). Code that runs
as a method without being one of the class statement (a decorator's wrapper, a class made with
``type()``, ``Cls.method = fn``, a descriptor's ``__get__``) is analysed as one (``_installed``).
"""
from __future__ import annotations

import ast
import builtins
import copy
import sys
import dataclasses
import functools
import os
import weakref
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from typing import Dict, Iterable, Iterator, KeysView, List, Optional, Tuple

from lint_rules.options import Options
from lint_rules.rules._installed import (
    BUILDER_MARK,
    builder_class,
    builder_method,
    built_backends,
    called_method,
    hands_backend,
    decorated_methods,
    dispatched,
    decorator_descriptor,
    descriptor_methods,
    PLACED_NAME,
    foreign_helpers,
    given_self,
    handed_helpers,
    made_classes,
    metaclass_methods,
    own_method,
    placed_at,
    patched_methods,
    wrapper_bodies,
)
from lint_rules.rules._flow import (
    BUILT,
    CHOICE,
    class_nodes,
    CLEAN,
    constant_strings,
    DECISION,
    DECISIVE,
    GATED,
    INNER,
    KIND,
    MIRROR,
    MODULE_MEMO,
    PICKERS,
    POOL,
    RECORD,
    RUNNER,
    SIZE,
    STALE,
    SWA,
    STATE,
    TYPE,
    TYPE_TESTS,
    VERDICT_EXCLUDED,
    VERDICTS,
    WHOLE_USES,
    Built,
    MethodFlow,
    StoreEvent,
    Taint,
    attribute_alias,
    class_statements,
    const_str,
    element,
    getter_path,
    empty_value,
    entry_key,
    handed_name,
    is_generator,
    pool_fill_methods,
    pool_reset_methods,
    is_self,
    namespace_of,
    names_own_class,
    is_type_probe,
    keyed_by_pool,
    last_name,
    method_caller,
    name_pattern,
    nodes_under,
    params_of,
    returns_nothing,
    self_attr,
    self_path,
    tested_operands,
    union,
    untrusted,
)
from lint_rules.rules._handing import handed_to, kept_in
from lint_rules.rules._vocab import (
    ACTIVE_POOL,
    ALLOCATOR,
    ALLOCATOR_POOL,
    BACKEND_METHODS,
    BACKEND_SUFFIX,
    INNER_HOLDER_SUFFIXES,
    CACHED_DECORATORS,
    DEFAULT_FLAG,
    DISPATCH_METHOD,
    FILLERS,
    LAYER_METHODS,
    LAYER_PARAM,
    OWNED,
    PER_FORWARD_PARAMS,
    PER_FORWARD_WORDS,
    RECORD_MARKS,
    RUNNER_SUFFIX,
    SHARED_POOLS,
    is_class_name,
    is_flag_like,
    is_flag_name,
    is_swa_word,
    is_test_case,
    reads_pool_state,
)

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SWAP_SETTER = ACTIVE_POOL + ".setter"
MAX_PASSES = 6  # attributes derived from attributes converge in 2-3; this bounds the odd file
TRUTH_METHODS = ("__bool__", "__len__")  # what ``if obj:`` calls: the first the class has
MAX_TABLE = 16  # entries of a module table of functions a loop over it is run with, at most
MAX_DEPTH = 40  # helpers evaluated inside helpers; deeper chains use the previous pass's value
# the globals table's entry for everything the class stored into the globals of modules it
# imports (no identifier: never a global's own name); nothing there, no module is looked at
IMPORTED_GLOBALS = "<imported>"


@dataclass(frozen=True)
class Store:
    """``self.<attr> = value`` (or ``setattr``, a class attribute, a module global, a cached
    property or function) and what it holds."""

    attr: str
    node: ast.AST  # what a finding points at
    statement: Optional[ast.stmt]  # the Assign/AnnAssign, None for setattr / cached property
    value: Optional[ast.expr]
    bits: Taint
    method: str
    sink: bool  # stored outside a per-forward method (or lazily): kept across forwards
    alone: bool  # the statement is the only one in its block
    resolver: bool  # stored inside a method that consults the allocator (the fix itself)
    scope: str = "self"  # self | class | module | cache
    under: Taint = CLEAN  # what the decisions around the store decided (control dependence)


@dataclass(frozen=True)
class Gate:
    """A decision reading ``self.<name>``: kind ``attr`` (the condition or a ``not``/``and``/
    ``or`` operand), ``read`` (inside a larger expression), ``alias`` (through a local) or
    ``call`` (a same-class helper ``self.<name>()``)."""

    name: str
    node: ast.AST  # what a finding points at
    target: ast.AST  # what a rewrite replaces: the read, or the enclosing ``not``
    negated: bool
    method: str
    kind: str
    bits: Taint = CLEAN  # for a ``call``: what the helper returns for the arguments given
    use: str = "other"  # how the decision tests it: "whole", "truth", "element" (``GateEvent.use``)


@dataclass(frozen=True)
class Flag:
    """A name that gates as a boolean SWA flag; ``exact`` is its one definition when that is
    exactly ``self.<pool_attr> is not None`` (``polarity`` True) or ``is None`` (False).
    ``pool_type`` marks a decision on the pool's type that is not about SWA
    (``isinstance(pool, MLATokenToKVPool)``): stale the same way, never rewritten into the
    SWA pool test."""

    name: str
    exact: Optional[Store] = None
    polarity: bool = True
    pool_type: bool = False
    derived: bool = False  # decided only under another stale flag (a second-order flag)
    inner: bool = False  # an inner backend's flag (self.backend.<flag>): no rewrite of ours

    @property
    def says_swa(self) -> bool:
        """Its value is the SWA question itself (True exactly when the pool it was decided
        from is SWA), not another pool class nor a choice made under another flag."""
        return not self.pool_type and not self.derived and not self.inner


@dataclass(eq=False)  # one object per class: ``in`` and sets test identity, not every field
class ClassFacts:
    """One attention backend class of the file (or a mixin / base one inherits from)."""

    name: str
    node: ast.ClassDef
    bases: tuple
    methods: Dict[str, ast.AST] = field(default_factory=dict)
    properties: Dict[str, bool] = field(default_factory=dict)  # name -> cached?
    returns: Dict[str, Taint] = field(default_factory=dict)
    stores: List[Store] = field(default_factory=list)
    gates: List[Gate] = field(default_factory=list)
    runner_reads: List[ast.Attribute] = field(default_factory=list)
    family: List["ClassFacts"] = field(default_factory=list)  # self, then same-file relatives
    foreign: tuple = ()  # summaries of bases defined in other modules (package mode)
    heirs: tuple = ()  # summaries of backends of other modules inheriting this mixin
    cached_methods: frozenset = frozenset()
    resolvers: frozenset = frozenset()
    # method (__init__ too) -> the attributes it stores what it read off the allocator into,
    # testing a pool's type: the resolver's, inline (``_resolved_in_place``)
    in_place: Dict[str, frozenset] = field(default_factory=dict)
    calls: Dict[str, set] = field(default_factory=dict)  # method -> self.<m>() it calls
    # how its methods bind token_to_kv_pool: "own" (self.token_to_kv_pool = ..., the swap
    # point), "handed" (other.token_to_kv_pool = ...: the pool handed on to what it holds),
    # "inner:<x>" (self.<x> holds an inner backend built here, with a pool of its own)
    pool_binds: frozenset = frozenset()
    per_forward: frozenset = frozenset()  # methods that run on every forward
    fields: Dict[str, Taint] = field(default_factory=dict)  # "layout.enabled" -> what it holds
    wrappers: Dict[str, list] = field(default_factory=dict)  # method -> bodies run in its place
    # helpers of other modules it hands ``self`` to, by how calls spell them: their defs placed
    # at the call (``_installed.foreign_helpers``)
    placed: Dict[str, ast.AST] = field(default_factory=dict)
    # functions outside the class keeping state on a backend of it they built (registry
    # creators): construction code, as ``__init__`` is (``ModuleScope.builders``)
    builders: frozenset = frozenset()
    # what its builders hand methods of the backend they build that this class does not define
    # (``backend.configure(pool)`` with ``configure`` the built class's): method -> "#<position>"
    # or keyword -> taint; a builders' summary carries it to that class's own flow
    handed_calls: Dict[str, Dict[str, Taint]] = field(default_factory=dict)


# -- which classes ----------------------------------------------------------------------------
def backend_classes(tree: ast.AST, options: Options, foreign_backends=frozenset(),
                    classes: Optional[list] = None) -> list:
    """Classes (at any statement depth, or made with ``type()``: ``classes``) named
    ``...Backend``, with a ``...Backend`` or configured base name, defining a method of the
    backend protocol, or with a base that is such a class of the same file (or, with a
    package index, of another module)."""
    if classes is None:
        classes = list(class_statements(getattr(tree, "body", ())))
    tests = _test_cases(classes)
    names: set = {node.name for node in classes if node.name not in tests
                  and (node.name.endswith(BACKEND_SUFFIX) or _by_protocol(node))}
    grew = True
    while grew:  # a class may derive from a local backend defined anywhere in the file
        grew = False
        for node in classes:
            if node.name not in names and node.name not in tests and any(
                base.endswith(BACKEND_SUFFIX) or base in options.backend_bases or base in names
                or base in foreign_backends
                for base in map(last_name, node.bases)
            ):
                names.add(node.name)
                grew = True
    return [node for node in classes if node.name in names]


def _test_cases(classes: list) -> set:
    """Names of the unittest classes among ``classes``, and of their same-file subclasses."""
    found = {node.name for node in classes if is_test_case(map(last_name, node.bases))}
    grew = bool(found)
    while grew:
        grew = False
        for node in classes:
            if node.name not in found and found.intersection(map(last_name, node.bases)):
                found.add(node.name)
                grew = True
    return found


def _by_protocol(node: ast.ClassDef) -> bool:
    """The class defines a method of the backend protocol as a backend does: a per-layer one
    taking the layer, or a metadata one, in a class that does not create the pool it reads."""
    methods = [s for s in node.body if isinstance(s, FUNCTIONS) and s.name in BACKEND_METHODS]
    return any(
        method.name not in LAYER_METHODS or any(LAYER_PARAM in p for p in params_of(method))
        for method in methods) and not _creates_pool(node)


def _creates_pool(node: ast.ClassDef) -> bool:
    """``self.token_to_kv_pool = SWAKVPool(...)`` (or the allocator) from no other object's
    pool: the class owns what it creates (the model runner), no swap rebinds it under it."""
    for statement in nodes_under(node):
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and any(
                self_attr(target) in OWNED for target in statement.targets):
            call = statement.value
            name = last_name(call.func)
            if (name[:1].isupper() or name.lower().endswith("cls")) and not any(
                    isinstance(n, ast.Attribute) and n.attr in OWNED and not is_self(n.value)
                    for arg in (*call.args, *call.keywords) for n in nodes_under(arg)):
                return True
    return False


def _with_mixins(classes: list, backends: list) -> list:
    """The backends and every same-file class (of ``classes``, all the file's) they inherit
    from (mixins hold their code too)."""
    by_name = {node.name: node for node in classes}
    found = list(backends)
    todo = [last_name(b) for node in backends for b in node.bases]
    while todo:
        node = by_name.get(todo.pop())
        if node is not None and node not in found:
            found.append(node)
            todo.extend(last_name(b) for b in node.bases)
    return found


# -- what module-level names mean -------------------------------------------------------------
def runner_flags_by_use(tree: ast.AST) -> frozenset:
    """Names of runner flags (``<runner>.is_hybrid``, ``<runner>.model_config.has_x``: a
    flag-like name, read off a runner) that a branch of this module keeps SWA pool state by:
    where a test of the flag (read there, or through a local or ``self`` attribute a function
    of the module copied it into) holds, SWA state is read off the pool the backend was built
    with (``<runner>.token_to_kv_pool.full_to_swa_index_mapping``, or ``self.token_to_kv_pool``'s
    outside per-forward code). SGLang 0.5.5 spelled the runner's hybrid-SWA flag ``is_hybrid``:
    a flag the code uses so is one, whatever its name says. One gating only geometry, sizes, the
    allocator's pool, or SWA reads of the live pool per forward (or where it is false: ``if not
    (self.is_encoder_decoder and ...)``) is not."""
    found = _RUNNER_FLAGS.get(tree)
    if found is None:
        text = _SOURCES.get(tree)
        if text is not None and text.isascii() and ACTIVE_POOL not in text:
            # no attribute of the module is named so (an ASCII text spells every name as the
            # parser reads it): no read off a pool, nothing to walk (most modules a summary
            # reads, whose whole walk served this question alone)
            found = _RUNNER_FLAGS[tree] = frozenset()
            return found
        nodes = nodes_under(tree)  # (no SWA read off a built pool anywhere: no flag, one walk)
        found = _RUNNER_FLAGS[tree] = _flags_by_use(nodes) if any(
            _built_swa_read(node, True) for node in nodes) else frozenset()
    return found


def parsed_from(tree: ast.AST, text: str) -> None:
    """``tree`` is the parse of module ``text`` (the package index's modules): questions of
    the whole module may be answered from its text where that proves the answer."""
    _SOURCES[tree] = text


# module tree -> runner_flags_by_use (each analysis of a module makes its own ModuleScope);
# module tree -> the text it was parsed from (``parsed_from``)
_RUNNER_FLAGS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()
_SOURCES: "weakref.WeakKeyDictionary[ast.AST, str]" = weakref.WeakKeyDictionary()


def _flags_by_use(nodes: List[ast.AST]) -> frozenset:
    found = set()
    functions = [node for node in nodes if isinstance(node, FUNCTIONS)]
    kept: Dict[str, str] = {}  # self attribute -> the runner flag copied into it
    for function in functions:
        for node in nodes_under(function):
            if type(node) is ast.Assign and _runner_flag_read(node.value):
                kept.update((name, node.value.attr) for name in map(self_attr, node.targets)
                            if name)
    for function in functions:
        local: Dict[str, str] = {}
        walked = nodes_under(function)
        for node in walked:
            if type(node) is ast.Assign and _runner_flag_read(node.value):
                local.update((t.id, node.value.attr) for t in node.targets
                             if type(t) is ast.Name)
        built = not _per_forward_by_name(function)
        for node in walked:
            if type(node) not in (ast.If, ast.IfExp):
                continue
            held, unheld = set(), set()
            _flags_tested(node.test, local, kept, True, held, unheld)
            body = node.body if type(node) is ast.If else [node.body]
            orelse = node.orelse if type(node) is ast.If else [node.orelse]
            for named, branch in ((held, body), (unheld, orelse)):
                if named and any(_reads_built_swa_state(part, built) for part in branch):
                    found |= named
    return frozenset(found)


def _per_forward_by_name(function: ast.AST) -> bool:
    """A method named for a forward or taking a batch (the flow's own test, by name only)."""
    return any(word in function.name for word in PER_FORWARD_WORDS) or any(
        word in arg.arg for arg in function.args.args for word in PER_FORWARD_PARAMS)


def _runner_rooted(node: ast.AST) -> bool:
    """A path rooted at a runner: a name, or a ``self`` attribute, ending in runner."""
    while type(node) is ast.Attribute and not is_self(node.value):
        node = node.value
    name = node.id if type(node) is ast.Name else self_attr(node) or ""
    return name.endswith("runner")


def _runner_flag_read(node: ast.AST) -> bool:
    """``<runner>.<flag-like>`` (``model_runner.is_hybrid``, ``runner.model_config.has_x``)."""
    return type(node) is ast.Attribute and is_flag_like(node.attr) and _runner_rooted(node.value)


def _flags_tested(test: ast.AST, local: Dict[str, str], kept: Dict[str, str], holds: bool,
                  held: set, unheld: set) -> None:
    """The runner flags a test reads, directly or through a copy, into ``held`` where the
    test's truth needs them true, else ``unheld`` (under a ``not``)."""
    kind = type(test)
    if kind is ast.UnaryOp and type(test.op) is ast.Not:
        _flags_tested(test.operand, local, kept, not holds, held, unheld)
        return
    if kind is ast.BoolOp:
        for value in test.values:
            _flags_tested(value, local, kept, holds, held, unheld)
        return
    name = test.attr if _runner_flag_read(test) else local.get(test.id) if kind is ast.Name \
        else kept.get(self_attr(test) or "")
    if name:
        (held if holds else unheld).add(name)


def _reads_built_swa_state(tree: ast.AST, built: bool) -> bool:
    """An SWA-named read of pool state off the pool the backend is built with:
    ``<runner>.token_to_kv_pool.<x>``, or (``built``: outside per-forward code)
    ``self.token_to_kv_pool.<x>``."""
    return any(_built_swa_read(node, built) for node in nodes_under(tree))


def _built_swa_read(node: ast.AST, built: bool) -> bool:
    if type(node) is not ast.Attribute or not is_swa_word(node.attr) or not (
            reads_pool_state(node.attr)):
        return False
    pool = node.value
    return type(pool) is ast.Attribute and pool.attr == ACTIVE_POOL and (
        _runner_rooted(pool.value) or built and is_self(pool.value))


class ModuleScope:
    """What a module-level name means in this file: its functions (and which of them resolve
    through the allocator or are cached), record types, names bound to type tuples, imports."""

    def __init__(self, tree: ast.AST, package=None, module: str = "", path: str = "") -> None:
        self.package, self.module, self.tree, self.path = package, module, tree, path
        self.digest: Optional[str] = None
        body = list(_module_statements(getattr(tree, "body", ())))
        self.functions: Dict[str, ast.AST] = {}
        self.classes: Dict[str, ast.ClassDef] = {}
        self._resolver: Dict[str, bool] = {}
        self.cached: set = set()
        self.records: set = set()
        self.derived: set = set()  # records whose __post_init__ derives fields: built objects
        self.fields: Dict[str, tuple] = {}  # record type -> its fields, in order
        self.type_aliases: Dict[str, bool] = {}
        self.getters: Dict[str, str] = {}  # NAME = operator.attrgetter("token_to_kv_pool")
        self.callers: Dict[str, ast.Call] = {}  # NAME = operator.methodcaller("get_key_buffer", 0)
        # NAME = f / mod.f / staticmethod(f) / functools.partial(f, ...): what calling NAME calls
        self.bound: Dict[str, ast.expr] = {}
        self.tables: Dict[str, ast.expr] = {}  # NAME = {"a": f, ...} / (f, g): a display
        self.globals: set = set()
        self.objects: Dict[str, str] = {}  # NAME = Klass(...): the class that made it
        self.strings: Dict[str, tuple] = {}  # NAME = ("a", "b"): the names a loop may bind
        self.imports: Dict[str, str] = {}
        self.alternatives: Dict[str, List[str]] = {}  # name -> other targets it was imported as
        self.stars: List[str] = []  # modules ``from X import *`` names, in order
        self.exports: Optional[tuple] = None  # __all__, when a constant list or tuple
        self.instances: Dict[tuple, Optional["Instance"]] = {}  # (class, arguments) -> object
        self.runner_attrs: Dict[str, Taint] = {}  # runner attribute -> what it holds
        self._records: Dict[tuple, tuple] = {}  # (table, key) -> what computing it read
        self._backends: Optional[frozenset] = None
        for statement in body:
            self._define(statement)
        # a singledispatch function: one that tests its argument's type, calling a variant
        self.functions.update(dispatched(body, lambda f: _decorator_names(f, self.imports)))
        # classes made with type() and methods assigned later: code of those classes
        self.made = made_classes(body, self.functions)
        self.patched = patched_methods(body, self.functions)
        self._builders: Optional[tuple] = None  # ``builders``: (same-module, other classes)
        self.builds: Optional[bool] = None  # whether the text may hold one (None: unknown)

    def _remembered(self, table: dict, key, guard, compute):
        """``table[key]``, computed once (``guard`` while it is: a cycle sees that). With a
        package index, every later use records again what the computation read, and whether
        it is repeatable (``PackageIndex.scope_reused``)."""
        what = (id(table), key)
        if key in table:
            if self.package is not None:
                self.package.scope_reused(self._records.get(what), what)
            return table[key]
        table[key] = guard
        if self.package is None:
            table[key] = compute()
        else:
            table[key], self._records[what] = self.package.scope_computed(compute, what)
        return table[key]

    @cached_property
    def class_nodes(self) -> List[ast.ClassDef]:
        """Every class statement of the module at any depth, and the classes ``type()`` makes
        (asked by each summary of it)."""
        return [*class_statements(getattr(self.tree, "body", ())), *self.made]

    @property
    def runner_flags(self) -> frozenset:
        """Runner flags this module uses as SWA flags whatever they are called
        (``runner_flags_by_use``, kept per tree)."""
        return runner_flags_by_use(self.tree)

    def _define(self, statement: ast.stmt) -> None:
        if isinstance(statement, FUNCTIONS):
            self.globals.add(statement.name)
            if not _is_overload(statement, self.imports):  # (a typing stub: the def after runs)
                self.functions.setdefault(statement.name, statement)
            if _decorator_names(statement, self.imports) & set(CACHED_DECORATORS):
                self.cached.add(statement.name)
        elif isinstance(statement, ast.ClassDef):
            self.globals.add(statement.name)
            self.classes.setdefault(statement.name, statement)
            marks = _decorator_names(statement) | {last_name(b) for b in statement.bases}
            if RECORD_MARKS & marks:
                self.records.add(statement.name)
                if any(isinstance(s, FUNCTIONS) and s.name == "__post_init__"
                       for s in statement.body):
                    self.derived.add(statement.name)
                self.fields[statement.name] = tuple(
                    s.target.id for s in statement.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [
                statement.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            self.globals.update(names)
            value = statement.value
            imported = _imported_by_call(value, self.module,
                                         os.path.basename(self.path) == "__init__.py")
            for name in names if imported else ():  # probe = importlib.import_module(".probe")
                self._import(name, imported)
            if type(value) is ast.Call and type(value.func) is ast.Name:
                self.objects.update((name, value.func.id) for name in names)  # X = Klass()
            callee = _callable_binding(value)
            for name in names if callee is not None else ():
                self.bound.setdefault(name, callee)
            if type(value) in (ast.Dict, ast.List, ast.Tuple, ast.Set):
                self.tables.update((name, value) for name in names)
            if "__all__" in names and isinstance(value, (ast.List, ast.Tuple)):
                self.exports = tuple(filter(None, map(const_str, value.elts)))
            if getter_path(value) is not None:
                self.getters.update((name, getter_path(value)) for name in names)
            elif method_caller(value) is not None:
                self.callers.update((name, value) for name in names)
            elif isinstance(value, ast.Call) and last_name(value.func) in (
                "namedtuple", "make_dataclass"
            ):
                self.records.update(names)
                self.fields.update((name, _field_names(value)) for name in names)
            elif isinstance(value, (ast.Tuple, ast.Name, ast.Attribute)):
                if constant_strings(value):  # NAMES = ("full_kv_pool", "swa_kv_pool")
                    self.strings.update((name, constant_strings(value)) for name in names)
                for name in names:
                    self.type_aliases[name] = self.type_aliases.get(name, False) or (
                        self.names_swa(value))
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                local = alias.asname or alias.name.split(".")[0]
                self._import(local, alias.name if alias.asname else local)
        elif isinstance(statement, ast.ImportFrom):
            base = _absolute(self.module, statement.module or "", statement.level,
                             os.path.basename(self.path) == "__init__.py")
            for alias in statement.names:
                if alias.name == "*":  # resolved only for a name nothing else binds
                    self.stars.append(base)
                    continue
                local = alias.asname or alias.name
                self._import(local, f"{base}.{alias.name}" if base else alias.name)

    def bound_call(self, name: str) -> Optional[ast.expr]:
        """What a call of module global ``name`` calls when an assignment bound it to a
        function (``probe = other.is_swa``, ``staticmethod(f)``, an alias of an alias) or to a
        ``functools.partial`` (that call: its arguments come first); None for a class (its
        construction is followed as such), a type alias or a name no assignment bound."""
        target = self.bound.get(name)
        if target is None or name in self.classes or is_class_name(last_name(target)):
            return None  # (a class, SWAKVPool = pools.SWAKVPool, is a type alias too)
        return target

    def function_table(self, name: str, kind: str) -> Optional[List[tuple]]:
        """``[(key, function), ...]`` for a loop over module table ``name`` of this module or,
        imported, of another module of the package: a dict's ``items()`` / ``values()`` (each
        key a constant string), a list or tuple itself; each function a module function
        (another module's as a name placed there: ``placed_at``). None for anything else."""
        display, scope = self.tables.get(name), self
        if display is None and self.package is not None and name in self.imports:
            found = self.package.function_table(self.qualified(ast.Name(id=name)))
            scope, display = found if found is not None else (self, None)
        if display is None:
            return None
        if type(display) is ast.Dict:
            if kind == "keys" or None in display.keys:
                return None
            rows = [(const_str(k), v) for k, v in zip(display.keys, display.values)]
        elif kind == "keys":
            rows = [(None, e) for e in display.elts]
        else:
            return None
        if not rows or len(rows) > MAX_TABLE or any(
                type(f) is not ast.Name or f.id not in scope.functions for _, f in rows):
            return None
        if scope is self:
            return rows
        placed = []
        for key, function in rows:
            name = f"{scope.module}.{function.id}"
            node = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), function)
            setattr(node, PLACED_NAME, name)
            placed.append((key, node))
        return placed

    def _aliased(self, name: str) -> Optional[str]:
        """``pkg.mod.x`` for module global ``name`` bound by assignment to a dotted name that
        is imported (``bb = gf.bb``, ``probe = gf.is_swa``, an alias of such an alias), as an
        import of it would be; None for anything else (a def or class of this module)."""
        seen = set()
        while name in self.bound and name not in seen and name not in self.functions and (
                name not in self.classes):
            seen.add(name)
            target = self.bound[name]
            if type(target) is ast.Name:
                if target.id in self.imports:
                    return self.qualified(target)
                name = target.id
            elif type(target) is ast.Attribute:
                root = target
                while type(root) is ast.Attribute:
                    root = root.value
                return self.qualified(target) if root.id not in seen else None
            else:
                return None
        return None

    def _import(self, local: str, target: str) -> None:
        """Bind ``local`` to module path ``target``; a name imported twice (``try`` / ``except
        ImportError``, ``if`` / ``else``) keeps the earlier targets as alternatives."""
        earlier = self.imports.get(local)
        if earlier is not None and earlier != target:
            self.alternatives.setdefault(local, []).insert(0, earlier)
        self.imports[local] = target
        self.globals.add(local)

    def called_object(self, klass: str, attr: str = "__call__") -> Optional[Tuple[str, bool]]:
        """``(name, bound)``: the module function that is method ``attr`` of an object of the
        module's class ``klass`` (``__call__``: calling the object), made on first use, and
        whether its first parameter is the object (its own ``self``, renamed as a
        descriptor's is: it reads the object, never the backend; not for a staticmethod);
        None when the class defines no such method."""
        node = self.classes.get(klass)
        method = next((s for s in node.body if isinstance(s, FUNCTIONS) and s.name == attr),
                      None) if node else None
        if method is None:
            return None
        bound = "staticmethod" not in _decorator_names(method, self.imports)
        positional = [*method.args.posonlyargs, *method.args.args]
        if bound and not positional:
            return None
        name = f"{klass}().{attr}"
        if name not in self.functions:
            self.functions[name] = called_method(method, positional[0].arg, name) if bound \
                else method
        return name, bound

    def is_resolver(self, name: str) -> bool:
        """A module function that asks the allocator: the fix itself, never followed (one of
        another module handed the backend is no resolver: ``handed_def`` leaves those out)."""
        if name not in self._resolver:
            function = self.functions.get(name)
            if function is None:
                return False
            self._resolver[name] = _mentions(function, ASKS) and asks_as_fallback(function)
        return self._resolver[name]

    def record_fields(self, func: ast.AST) -> Optional[Tuple[str, ...]]:
        """The fields, in order, of the record class ``func`` names (a dataclass, NamedTuple...
        of this module or, imported, of another module of the package) whose fields are its
        arguments; None for any other callable."""
        name = last_name(func)
        if name in self.records:
            return None if name in self.derived else self.fields.get(name, ())
        qualified = self.qualified(func) if self.package is not None and (
            name not in self.classes and name not in self.functions) else None
        found = self.package.record_class(qualified) if qualified is not None else None
        return found[0].scope.record_fields(ast.Name(id=found[1])) if found else None

    def calls_resolver(self, func: ast.AST) -> bool:
        """``func`` names a resolver: a function of this module that asks the allocator, or one
        of another module of the package (imported in any form)."""
        if isinstance(func, ast.Name) and func.id in self.functions:
            return self.is_resolver(func.id)
        qualified = self.qualified(func) if self.package is not None else None
        return qualified is not None and self.package.is_resolver(qualified)

    def unseen_callee(self, func: ast.AST) -> bool:
        """``func`` is imported and its body is beyond this analysis: per file, any import;
        with the package index, one the run does not hold (what it returns is unknown)."""
        qualified = self.qualified(func)
        if qualified is None:
            return False
        return self.package is None or self.package.function_def(qualified) is None

    def names_swa(self, node: ast.AST) -> bool:
        """A class name holding SWA (or a tuple with one, or a name bound to such a tuple, or
        a string naming SWA state)."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(self.names_swa(el) for el in node.elts)
        text = const_str(node)
        if text is not None:
            return is_swa_word(text)
        name = last_name(node)
        return is_swa_word(name) or (isinstance(node, ast.Name) and self.type_aliases.get(
            name, False))

    def backend_names(self, options: Options) -> frozenset:
        """Names of this module's attention backend classes."""
        if self._backends is None:
            foreign = self.package.backend_names(self) if self.package is not None else ()
            self._backends = frozenset(
                node.name for node in backend_classes(self.tree, options, frozenset(foreign),
                                                      self.class_nodes))
        return self._backends

    def is_backend_class(self, func: ast.AST, options: Options) -> bool:
        """``func`` names an attention backend class: by its name (``...Backend``, a configured
        base), one of this module, or (with a package index) one of the package's."""
        name = last_name(func)
        if not name or type(func) not in (ast.Name, ast.Attribute) or is_test_case([name]):
            return False
        return name.endswith(BACKEND_SUFFIX) or name in options.backend_bases or (
            name in self.backend_names(options)) or (
            self.package is not None and self.package.is_backend_name(name))

    def builders(self, options: Options) -> tuple:
        """``({class: [method, ...]}, [(class, [method, ...]), ...])``: the functions of the
        module outside any class that keep state on a backend they built or were handed
        (``_installed.built_backends``), each as a method of that backend
        (``builder_method``): by the name of a backend class of this module, else by the
        expression naming its class (None: a backend parameter of no class known). One the
        module's own backends hand ``self`` to is their helper already (``handed_helpers``),
        and with a package index so is one that a backend of another module hands ``self``."""
        if self._builders is None and self.builds is False:
            self._builders = ({}, [])
        if self._builders is None:
            own: Dict[str, list] = {}
            other: Dict[str, list] = {}
            kinds: Dict[str, Optional[ast.expr]] = {}
            classes = self.backend_names(options)
            found, handed = [], None
            for statement, owner in self._builder_candidates():
                for name, kind, made in built_backends(
                        statement, lambda f: self.is_backend_class(f, options), self._helper):
                    built = any(type(s.value) is not ast.Name for s in made)
                    found.append((statement, kind, built,
                                  builder_method(statement, name, made, owner)))
            for statement, kind, built, method in found:
                if not built:  # handed a backend: unless a backend hands itself to it
                    if handed is None:  # (or a builder here hands it what it built)
                        handed = self._handed_self() | frozenset(
                            node.func.id for _, _, b, m in found if b for node in nodes_under(m)
                            if type(node) is ast.Call and type(node.func) is ast.Name
                            and any(is_self(a) for a in node.args))
                    if statement.name in handed or (
                            self.package is not None and self.package.hands_self_to(
                                f"{self.module}.{statement.name}", statement.name)):
                        continue
                if isinstance(kind, ast.Name) and kind.id in classes and (
                        kind.id in self.classes):
                    own.setdefault(kind.id, []).append(method)
                else:
                    key = ast.dump(kind) if kind is not None else ""
                    other.setdefault(key, []).append(method)
                    kinds.setdefault(key, kind)
            self._builders = (own, [(kinds[key], methods) for key, methods in other.items()])
        return self._builders

    def _builder_candidates(self) -> Iterator[Tuple[ast.AST, str]]:
        """``(function, owner)``: each module function (owner ``""``), and each method of a
        class of the module (owner: that class's name; a multi-step draft wrapper building its
        per-step backends in ``__init__``, a composite its children)."""
        for statement in _module_statements(getattr(self.tree, "body", ())):
            if type(statement) is ast.ClassDef:
                if not is_test_case(map(last_name, statement.bases)):
                    for method in statement.body:
                        if type(method) is ast.FunctionDef:
                            yield method, statement.name
            else:
                yield statement, ""

    def _helper(self, func: ast.AST) -> bool:
        """``func`` names a function of this module or one imported (a helper a builder may
        hand the backend to)."""
        return type(func) is ast.Name and (func.id in self.functions or func.id in self.imports) \
            or type(func) is ast.Attribute and type(func.value) is ast.Name and (
                func.value.id in self.imports)

    def _handed_self(self) -> frozenset:
        """Names of the calls handing ``self`` in this module's classes (``helper(self)``)."""
        return frozenset(
            node.func.id for klass in self.class_nodes for node in nodes_under(klass)
            if type(node) is ast.Call and type(node.func) is ast.Name and any(
                is_self(a) for a in node.args))

    def instance(self, func: ast.AST, arguments: tuple, keywords: tuple,
                 options: Options, called: str = "") -> Optional["Instance"]:
        """What an object of the class ``func`` names (of this module, or with a package index
        of another module) holds once built with arguments holding these taints (``called``:
        once that method of it is called with them); None for a class the index does not
        know."""
        if isinstance(func, ast.Name) and func.id in self.classes:
            return self._remembered(  # (a class building itself sees nothing)
                self.instances, (func.id, arguments, keywords, called), None,
                lambda: instance_summary(self, func.id, arguments, keywords, options, called))
        qualified = self.qualified(func)
        if qualified is None or self.package is None:
            return None
        if called:
            return self.package.instance(qualified, arguments, keywords, called)
        return self.package.instance(qualified, arguments, keywords)

    def runner_attr(self, attr: str, options: Options) -> Taint:
        """What ``<runner>.<attr>`` holds: state a runner class of this module (else, with a
        package index, of the package) builds once from its own pool."""
        if attr in SHARED_POOLS or not reads_pool_state(attr):
            return CLEAN  # geometry, sizes and the shared pools are no pool state
        # (a runner reading its own attribute: no cycle)
        return self._remembered(self.runner_attrs, attr, CLEAN,
                                lambda: self._runner_attr(attr, options))

    def _runner_attr(self, attr: str, options: Options) -> Taint:
        bits = union(runner_built(self, name, attr, options) for name in self.classes
                     if name.endswith(RUNNER_SUFFIX))
        if not bits and self.package is not None:
            bits = self.package.runner_attr(attr, self.path)
        return bits

    def handed_def(self, func: ast.AST) -> Optional[tuple]:
        """``(def, scope)``: the function of another module of the package that ``func`` names,
        for a call handing it the backend, and its module's scope; None for anything else, and
        for a resolver (one asking the allocator: the fix itself, whose pool is not kept)."""
        qualified = self.qualified(func) if self.package is not None else None
        found = self.package.function_def(qualified) if qualified else None
        return None if found is None or _mentions(found[0], ASKS) else found

    def class_of(self, node: ast.AST) -> Optional[ast.ClassDef]:
        """The class statement ``node`` names: a class of this module, or, with a package
        index, one of another module of the package; None for anything else."""
        if type(node) is ast.Name and node.id in self.classes:
            return self.classes[node.id]
        if type(node) not in (ast.Name, ast.Attribute) or self.package is None:
            return None
        qualified = self.qualified(node)
        return self.package.class_def(qualified) if qualified else None

    def placed_def(self, node: ast.AST, kind: type) -> Optional[ast.AST]:
        """The module-level function (``kind`` ``ast.FunctionDef``) or class (``ast.ClassDef``)
        ``node`` names, run where ``node`` stands (a class decorator, a metaclass): of this
        module, or, with a package index, a copy of another module's placed at ``node``
        (``placed_at``: what is found in it is reported here); None for anything else."""
        table = self.functions if kind is ast.FunctionDef else self.classes
        if type(node) is ast.Name and node.id in table:
            return table[node.id]
        if type(node) not in (ast.Name, ast.Attribute) or self.package is None:
            return None
        qualified = self.qualified(node)
        if not qualified:
            return None
        found = (self.package.function_def if kind is ast.FunctionDef else (
            self.package.class_home))(qualified)
        return placed_at(found[0], node, found[1]) if found is not None else None

    def subclass_hook(self, base: ast.AST) -> Optional[ast.AST]:
        """The ``__init_subclass__`` of the class ``base`` names, of this module or (placed at
        ``base``, as ``placed_def`` places) of the package; None when it defines none. Only
        that method is copied: a base class is often the largest class of its module."""
        found = self._class_defining(base, "__init_subclass__")
        hook = own_method(found[0], "__init_subclass__") if found is not None else None
        return hook if found is None or found[1] is None else placed_at(hook, base, found[1])

    def descriptor_class(self, func: ast.AST) -> Optional[ast.ClassDef]:
        """The class ``func`` names when it defines ``__get__`` (``placed_def``'s, copied only
        then: ``x = Helper(...)`` in a class body is seldom a descriptor)."""
        found = self._class_defining(func, "__get__")
        if found is None:
            return None
        return found[0] if found[1] is None else placed_at(found[0], func, found[1])

    def _class_defining(self, node: ast.AST, method: str) -> Optional[tuple]:
        """``(class, its module's scope or None for this module)`` for the class ``node``
        names when it defines ``method``; None otherwise."""
        if type(node) is ast.Name and node.id in self.classes:
            klass = self.classes[node.id]
            return (klass, None) if own_method(klass, method) is not None else None
        qualified = self.qualified(node) if type(node) in (ast.Name, ast.Attribute) and (
            self.package is not None) else None
        found = self.package.class_home(qualified) if qualified else None
        return found if found is not None and own_method(found[0], method) else None

    def qualified(self, func: ast.AST) -> Optional[str]:
        """``pkg.mod.helper`` for ``helper`` / ``alias.helper`` / ``alias.C.of`` imported from
        the package (a name of another module's helper placed here says its own: ``placed_at``)."""
        named = getattr(func, PLACED_NAME, None)
        if named is not None:
            return named
        if isinstance(func, ast.Name):
            found = self.imports.get(func.id)
            if found is None and func.id in self.bound:  # bb = other.bb: as other names it
                return self._aliased(func.id)
            if self.package is None:
                return found
            if func.id in self.alternatives:  # whichever of them the package defines
                found = self.package.first_defined([found, *self.alternatives[func.id]], self)
            elif found is None and self.stars and func.id not in self.globals:
                found = self.package.star_export(self, func.id)
            return found
        if isinstance(func, ast.Attribute):
            holder = self.qualified(func.value)
            return f"{holder}.{func.attr}" if holder else None
        return None


def _callable_binding(value: ast.AST) -> Optional[ast.expr]:
    """What a name bound to ``value`` calls when it is called: ``f`` / ``mod.f`` themselves,
    ``staticmethod(f)`` and ``classmethod(f)`` ``f``, ``functools.partial(f, ...)`` that call
    (None for anything else)."""
    while type(value) is ast.Call and last_name(value.func) in ("staticmethod", "classmethod") \
            and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if type(value) is ast.Call and last_name(value.func) == "partial" and value.args and all(
            type(a) is not ast.Starred for a in value.args):
        return value
    root = value
    while type(root) is ast.Attribute:  # a dotted name: mod.f, mod.Klass.f
        root = root.value
    return value if type(root) is ast.Name else None


def _field_names(call: ast.Call) -> tuple:
    """The fields ``namedtuple("X", "a b")`` / ``namedtuple("X", ["a", "b"])`` declares."""
    spec = call.args[1] if len(call.args) > 1 else None
    if const_str(spec) is not None:
        return tuple(const_str(spec).replace(",", " ").split())
    if isinstance(spec, (ast.List, ast.Tuple)):
        return tuple(const_str(e) for e in spec.elts if const_str(e) is not None)
    return ()


def _module_statements(statements) -> Iterator[ast.stmt]:
    """Module-level statements, also inside ``if``/``try`` (conditional imports, fallbacks)."""
    for statement in statements:
        if isinstance(statement, (ast.If, ast.Try)) or type(statement).__name__ == "TryStar":
            for name in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(statement, name, ()))
            for handler in getattr(statement, "handlers", ()):
                yield from _module_statements(handler.body)
        else:
            yield statement


def imported_names(tree: ast.AST, owned: bool = True) -> ast.AST:
    """``tree`` with every name a module-level ``from <standard library> import name as alias``
    binds spelled by its own name (``partial``, not ``_bind``; ``attrgetter``, not ``getter``),
    so every form the analysis knows by name is known under any alias. The renaming is
    consistent (every read, store and parameter of the alias), and skipped for an alias whose
    own name the module binds otherwise. A method's receiver spelled otherwise is renamed too
    (``receivers_named``). ``owned``: the tree is the caller's to change; otherwise (flake8's,
    which other plugins read) a renamed copy is returned."""
    renamed = _module_aliases(tree, owned)
    return receivers_named(renamed, owned or renamed is not tree)  # (a copy is ours)


# on a method whose receiver ``receivers_named`` renamed: the name the source gives it
RECEIVER_MARK = "poolguard_receiver"
# methods whose first parameter is the class, whatever their decorators say
_CLASS_RECEIVERS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
# receivers left as spelled: the two the analysis reads, and a metaclass's (its ``self`` is a
# class: ``def __call__(cls, ...)`` is right there)
_RECEIVER_NAMES = frozenset({"self", "cls", "mcs", "mcls", "metacls"})
# decorators that keep a method's first parameter its object (or class)
_RECEIVING_DECORATORS = frozenset({
    "property", "setter", "getter", "deleter", "cached_property", "classmethod",
    "abstractmethod", "lru_cache", "cache", "override", "final", "wraps"})


def receivers_named(tree: ast.AST, owned: bool = True) -> ast.AST:
    """``tree`` with the receiver of every method spelled ``self`` (``cls`` for a classmethod
    and ``__new__``) where the source names it otherwise (``def __init__(this, runner)``): the
    analysis reads the object's state as ``self.<attr>``, whatever its method calls it. Renamed
    only where the method (with what it nests) spells neither ``self``/``cls`` nor the old name
    as another parameter; such a method is marked (``RECEIVER_MARK``: the codemods, which edit
    the source as written, leave its class alone). ``owned``: as ``imported_names``."""
    found = []
    for node in class_statements(getattr(tree, "body", ())):
        wrapped = {a.id for n in node.body if type(n) in (ast.Assign, ast.AnnAssign) and type(
            n.value) is ast.Call for a in n.value.args if type(a) is ast.Name}  # f = wrap(_f)
        for method in node.body:
            if type(method) not in FUNCTIONS or method.name in wrapped:
                continue
            decorators = _decorator_names(method)
            positional = [*method.args.posonlyargs, *method.args.args]
            if not decorators <= _RECEIVING_DECORATORS or not positional:
                continue  # (a staticmethod, or a decorator that may change what it receives)
            wanted = "cls" if "classmethod" in decorators or method.name in _CLASS_RECEIVERS \
                else "self"
            spelled = positional[0].arg
            if spelled not in _RECEIVER_NAMES and _renamable(method, spelled, wanted):
                found.append((method, spelled, wanted))
            made = _made_object(method) if method.name == "__new__" else None
            if made is not None:  # obj = super().__new__(cls); obj.x = ...: obj is self
                found.append((method, made, "self"))
    if not found:
        return tree
    if not owned:  # (the same nodes, found again in a copy)
        return receivers_named(copy.deepcopy(tree))
    for method, spelled, wanted in found:
        for inner in ast.walk(method):
            if type(inner) is ast.Name and inner.id == spelled:
                inner.id = wanted
            elif type(inner) is ast.arg and inner.arg == spelled:
                inner.arg = wanted
        setattr(method, RECEIVER_MARK, spelled)
    return tree


def _made_object(method: ast.AST) -> Optional[str]:
    """The local of ``__new__`` bound, once, to the object it makes (``obj = super().__new__(
    cls)``, ``object.__new__``): what its later methods see as ``self``; None when there is
    none, or renaming it to ``self`` could change a binding."""
    stores = [n for n in ast.walk(method) if type(n) is ast.Name and type(n.ctx) is ast.Store]
    positional = [*method.args.posonlyargs, *method.args.args]
    klass = positional[0].arg if positional else None
    made = [n.targets[0].id for n in ast.walk(method)
            if type(n) is ast.Assign and len(n.targets) == 1 and type(n.targets[0]) is ast.Name
            and type(n.value) is ast.Call and last_name(n.value.func) == "__new__"
            and n.value.args and type(n.value.args[0]) is ast.Name
            and n.value.args[0].id == klass]  # (an object of this class, not another's)
    if len(made) != 1 or sum(1 for n in stores if n.id == made[0]) != 1:
        return None
    return made[0] if _renamable(method, made[0], "self", params=0) else None


def _renamable(method: ast.AST, spelled: str, wanted: str, params: int = 1) -> bool:
    """Renaming ``spelled`` to ``wanted`` in ``method`` changes no binding: ``wanted`` is not
    spelled there, and ``spelled`` is a parameter ``params`` times (the method's own: no nested
    function or lambda takes a parameter of that name), no ``global``/``nonlocal`` names it."""
    expected, params, stores = params, 0, 0
    for inner in ast.walk(method):
        kind = type(inner)
        if kind is ast.Name and inner.id == wanted or kind is ast.arg and inner.arg == wanted:
            return False
        if kind is ast.Name and inner.id == spelled and type(inner.ctx) is not ast.Load:
            stores += 1  # (rebound, deleted: then no longer the object everywhere)
            if stores > 1 - expected:
                return False
        if kind is ast.arg and inner.arg == spelled:
            params += 1
        elif kind in (ast.Global, ast.Nonlocal) and (spelled in inner.names or (
                wanted in inner.names)):
            return False
    return params == expected


def renamed_receiver(classes: Iterable["ClassFacts"]) -> bool:
    """A method of one of these classes names its receiver otherwise than the analysis reads
    it (``receivers_named``): an edit planned on ``self.<attr>`` would not match the source."""
    return any(getattr(m, RECEIVER_MARK, None) for c in classes for m in c.methods.values())


def _module_aliases(tree: ast.AST, owned: bool) -> ast.AST:
    """``imported_names``' first half: the standard library's aliases by their own names."""
    renames = {}
    for statement in _module_statements(getattr(tree, "body", ())):
        if isinstance(statement, ast.ImportFrom) and not statement.level and statement.module \
                and statement.module.partition(".")[0] in sys.stdlib_module_names:
            renames.update((a.asname, a.name) for a in statement.names
                           if a.asname and a.asname != a.name and a.name != "*")
    if not renames:
        return tree
    taken = set()  # every name the module spells otherwise: a read, a parameter, an import
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            taken.add(node.id)
        elif kind is ast.arg:
            taken.add(node.arg)
        elif kind is ast.Import or kind is ast.ImportFrom:
            taken.update(a.asname or a.name for a in node.names)
    renames = {alias: name for alias, name in renames.items() if name not in taken}
    if not renames:
        return tree
    if not owned:
        tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        if type(node) is ast.Name and node.id in renames:
            node.id = renames[node.id]
        elif type(node) is ast.arg and node.arg in renames:
            node.arg = renames[node.arg]
    return tree


def _imported_by_call(value: ast.AST, module: str, package: bool) -> Optional[str]:
    """The module ``importlib.import_module("x.y")`` (or ``(".y", __package__)``, relative to
    this ``module``) imports, as an import statement would name it; None for any other value."""
    if type(value) is not ast.Call or last_name(value.func) != "import_module" or not (
            value.args) or len(value.args) > 2 or value.keywords:
        return None
    name = const_str(value.args[0])
    if not name:
        return None
    level = len(name) - len(name.lstrip("."))
    if level and (len(value.args) < 2 or type(value.args[1]) is not ast.Name or (
            value.args[1].id != "__package__")):
        return None  # (relative to a package spelled otherwise: not known here)
    return _absolute(module, name[level:], level, package) or None


def _absolute(module: str, target: str, level: int, package: bool = False) -> str:
    """The absolute module an ``from .x import y`` in ``module`` names (``package``: the
    module is a package's ``__init__``, named as the package: one dot is the package itself)."""
    if not level:
        return target
    parts = module.split(".") if module else []
    parts = parts[: max(0, len(parts) - level + package)]
    return ".".join([*parts, target] if target else parts)


# method node -> (positions, bound) -> its copy taking the backend there (``given_self``)
_GIVEN_SELF: "weakref.WeakKeyDictionary[ast.AST, dict]" = weakref.WeakKeyDictionary()


def _given_self(function: ast.AST, positions: Tuple[int, ...], bound: bool) -> Optional[ast.AST]:
    copies = _GIVEN_SELF.setdefault(function, {})
    if (positions, bound) not in copies:
        copies[positions, bound] = given_self(function, positions, bound)
    return copies[positions, bound]


def _is_overload(node: ast.AST, imports: Dict[str, str]) -> bool:
    """A ``typing.overload`` stub: a signature only, the def that follows is what runs."""
    return "overload" in _decorator_names(node, imports)


def _decorator_names(node, imports: Optional[Dict[str, str]] = None) -> set:
    """The names of ``node``'s decorators; with the module's ``imports``, a name imported
    under another (``from functools import cached_property as memoized``) by its own."""
    names = set()
    for decorator in node.decorator_list:
        named = getattr(decorator, "func", decorator)
        name = last_name(named)
        if imports and type(named) is ast.Name and name in imports:
            name = imports[name].rpartition(".")[2]
        names.add(name)
    return names


ASKS = (ALLOCATOR, ALLOCATOR_POOL)
ENTERS = ("__enter__", "__aenter__")  # what a context manager's ``as`` target is bound to


def asks_as_fallback(function: ast.AST) -> bool:
    """A resolver's shape: the allocator is asked on some paths only (after a branch that
    returned, in one branch of a decision not on the allocator's own answer, a later candidate
    of a loop), the active pool's answer first. A helper handing back the allocator's pool
    whatever the active one is takes it outside any resolver. A local bound to the allocator
    or to its pool (``allocator = runner.token_to_kv_pool_allocator``) asks where it is read."""
    returned, aliases = False, set()

    def asks(node: ast.AST) -> bool:
        return any(type(n) is ast.Attribute and n.attr in ASKS or type(n) is ast.Name and (
            n.id in ASKS or n.id in aliases) for n in nodes_under(node))

    def hands(node: ast.AST) -> bool:
        """``node`` asks the allocator, or hands on a local holding it or its answer as a
        value (``else shared``, ``getter()``), not as what a test tests (``isinstance(cache,
        ...)``: a decision on the answer, which was asked up front)."""
        if _mentions(node, ASKS):
            return True
        stack = [node]
        while stack:
            part = stack.pop()
            kind = type(part)
            if kind is ast.Name and part.id in aliases:
                return True
            if kind is ast.Call:
                stack.append(part.func)
            elif kind is not ast.Compare and kind is not ast.UnaryOp:
                stack.extend(ast.iter_child_nodes(part))
        return False

    for statement in getattr(function, "body", ()):
        if asks(statement):
            if returned or _asks_in_branch(statement, asks, hands):
                return True
            if type(statement) in (ast.Assign, ast.AnnAssign) and statement.value is not None:
                targets = getattr(statement, "targets", None) or [statement.target]
                aliases.update(t.id for t in targets if type(t) is ast.Name)
        elif not returned and not isinstance(statement, ast.Return):
            returned = any(type(n) is ast.Return for n in nodes_under(statement))
    return False


def _asks_in_branch(statement: ast.stmt, asks, hands) -> bool:
    """The allocator asked (``hands``) in a branch of a decision of ``statement`` whose test
    does not ask it (``asks``: a decision on the allocator's own answer takes it first), or
    in a later candidate of a loop over a display (``for p in (active, alloc.get_kvcache())``)."""
    for node in nodes_under(statement):
        kind = type(node)
        if kind in (ast.If, ast.IfExp):
            test, branches = node.test, [node.body, node.orelse]
        elif kind is ast.BoolOp:
            test, branches = node.values[0], node.values[1:]
        elif kind is ast.Match:
            test, branches = node.subject, node.cases
        elif kind is ast.Try or kind.__name__ == "TryStar":
            test, branches = node.body, [node.handlers, node.orelse]
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension) and type(
                node.iter) in (ast.Tuple, ast.List) and node.iter.elts:
            test, branches = node.iter.elts[0], node.iter.elts[1:]
        else:
            continue
        if any(asks(part) for part in (test if isinstance(test, list) else [test])):
            continue
        if any(hands(part) for branch in branches for part in (
                branch if isinstance(branch, list) else [branch])):
            return True
    return False


def _mentions(node: ast.AST, names: tuple) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr in names)
        or (isinstance(n, ast.Name) and n.id in names)
        for n in nodes_under(node)
    )


# -- one class --------------------------------------------------------------------------------
@dataclass
class AttrEnv:
    """What a class's attributes hold, as one pass leaves them (the next pass's input)."""

    sinks: Dict[str, Taint] = field(default_factory=dict)  # stored outside per-forward code
    forward: Dict[str, Taint] = field(default_factory=dict)  # stored per forward
    globals: Dict[str, Taint] = field(default_factory=dict)  # module globals the class stored
    returns: Dict[str, Taint] = field(default_factory=dict)  # what each method returns
    params: Dict[str, Dict[str, Taint]] = field(default_factory=dict)  # what callers pass

    def copy(self) -> "AttrEnv":
        return AttrEnv(dict(self.sinks), dict(self.forward), dict(self.globals),
                       dict(self.returns), {k: dict(v) for k, v in self.params.items()})

    def get(self, table: str, key: str):
        """What ``table`` holds for ``key`` (nothing: CLEAN, or no arguments for ``params``)."""
        return getattr(self, table).get(key, {} if table == "params" else CLEAN)


@dataclass
class PassResult:
    env: AttrEnv
    stores: List[Store]
    gates: List[Gate]
    runner_reads: List[ast.Attribute]
    returns: Dict[str, Taint]
    fields: Dict[str, Taint]


class ClassFlow:
    """Runs the taint model over one class until its attributes stop changing."""

    def __init__(self, facts: ClassFacts, options: Options, scope: ModuleScope,
                 earlier: Optional["ClassFlow"] = None) -> None:
        self.facts, self.options, self.scope = facts, options, scope
        self.per_forward = _per_forward(facts.methods, facts.calls, facts.properties) | (
            _called_back(facts, scope, options))
        self.resolvers, self.in_place = facts.resolvers, facts.in_place
        self.order = _callers_first(facts.methods, facts.calls)
        self.swap_point = _keeps_pool(facts) and _by_lineage(facts, options)
        self.inner_backends = frozenset(b for c in facts.family for b in c.pool_binds)
        self.hands_pool_on = _hands_pool_on(facts)
        self.handed_to = _handed_to(facts)  # None: the swap reaches every object it holds
        # __getattr__ answers every read of a name the class never binds
        self.delegate = next((c.methods["__getattr__"] for c in facts.family
                              if "__getattr__" in c.methods), None)
        self.bound = _bound_names(facts.family) if self.delegate is not None else frozenset()
        self.resets = _resets(facts, self.per_forward, self._foreign_forwards())
        self.patterns = _stored_patterns(facts)
        self.passes: List[_Kept] = []  # each pass's records, for a later run (``earlier``)
        self._overrides: Dict[str, List[ast.AST]] = {}
        # a run of this class in another analysis of the tree (with a package index), when
        # this one has none and all a turn reads beside its pass's state is the same in both
        self.earlier = earlier if earlier is not None and scope.package is None and (
            self._same_setting(earlier)) else None

    def _same_setting(self, other: "ClassFlow") -> bool:
        """Its family has the same code (a helper read as a method is a copy per analysis) and
        what the flow derives from the family and its surroundings is the same."""
        mine, theirs = self.facts.family, other.facts.family
        return self.options == other.options and len(mine) == len(theirs) and all(
            a.node is b.node and all(getattr(a, name) == getattr(b, name) for name in _FACETS)
            for a, b in zip(mine, theirs)) and all(
            getattr(self, name) == getattr(other, name) for name in _SETTING)

    @cached_property
    def class_strings(self) -> Dict[str, str]:
        """``NAME = "attr"`` in the class statements of the family: the constant names."""
        return {target.id: statement.value.value for cls in reversed(self.facts.family)
                if cls.node is not None
                for statement in cls.node.body if type(statement) is ast.Assign
                and const_str(statement.value) for target in statement.targets
                if type(target) is ast.Name}

    @cached_property
    def made_attrs(self) -> Dict[str, str]:
        """``self.<attr> = Klass(...)`` at the top of a method of the family: attr -> Klass."""
        return {target.attr: statement.value.func.id for cls in reversed(self.facts.family)
                for method in cls.methods.values() for statement in method.body
                if type(statement) is ast.Assign and type(statement.value) is ast.Call
                and type(statement.value.func) is ast.Name
                for target in statement.targets if self_attr(target)}

    @cached_property
    def keyed_dicts(self) -> frozenset:
        """``self.<attr>`` dicts the family builds as a literal of constant keys and uses only
        through constant keys (``self.cfg["swa"] = ...``, ``self.cfg["page"]``,
        ``self.cfg.get("page")``): each key holds only what was stored under it."""
        built, keyed, used = set(), set(), {}
        for cls in self.facts.family:
            for method in cls.methods.values():
                method_built, method_keyed, method_used = _keyed_scan(method)
                built |= method_built
                keyed |= method_keyed
                for attr, ids in method_used.items():
                    used.setdefault(attr, []).extend(ids)
        return frozenset(a for a in built if all(n in keyed for n in used.get(a, ())))

    @cached_property
    def held_lists(self) -> Dict[str, list]:
        """``self.<attr> = [self.prefill, self.decode]`` in a method of the family, its only
        kind of store: attr -> those ``self`` paths (a loop over it runs once per object)."""
        found: Dict[str, list] = {}
        other = set()
        for cls in self.facts.family:
            for method in cls.methods.values():
                for node in nodes_under(method):
                    if type(node) is not ast.Assign:
                        continue
                    for target in node.targets:
                        attr = self_attr(target)
                        if not attr:
                            continue
                        value = node.value
                        if type(value) in (ast.List, ast.Tuple) and value.elts and all(
                                self_path(e) is not None for e in value.elts):
                            found.setdefault(attr, value.elts)
                        else:
                            other.add(attr)
        return {attr: elts for attr, elts in found.items() if attr not in other}

    @cached_property
    def getter_attrs(self) -> Dict[str, str]:
        """``self.<attr> = operator.attrgetter("a.b")`` at the top of a method of the family:
        attr -> the path a call of it reads off its argument."""
        return {target.attr: path for cls in reversed(self.facts.family)
                for method in cls.methods.values() for statement in method.body
                if type(statement) is ast.Assign
                and (path := getter_path(statement.value)) is not None
                for target in statement.targets if self_attr(target)}

    @cached_property
    def kept_handed(self) -> Tuple[frozenset, frozenset]:
        """(names ``__init__`` keeps, ``id`` of the callee of every call the class keeps) where
        the swap hands the pool (``_handing.kept_in``); nothing when it hands it nowhere."""
        if not self.handed_to:
            return frozenset(), frozenset()
        init = self.facts.methods.get("__init__")
        names = kept_in(init, self.handed_to)[0] if init is not None else ()
        return frozenset(names), frozenset(
            callee for c in self.facts.family for function in c.methods.values()
            for callee in kept_in(function, self.handed_to)[1])

    def _foreign_forwards(self) -> Dict[str, List[ast.AST]]:
        """The per-forward methods of the same names that bases of other modules define
        (``init_forward_metadata`` of a base the heir calls first), for ``_resets``."""
        package = self.scope.package
        if package is None:
            return {}
        found: Dict[str, List[ast.AST]] = {}
        for c in self.facts.family:
            for base in getattr(c.node, "bases", ()):
                qualified = self.scope.qualified(base)
                for name in self.per_forward if qualified else ():
                    method = package.method_def(qualified, name)
                    if method is not None:
                        found.setdefault(name, []).append(method)
        return found

    def overrides(self, name: str) -> List[ast.AST]:
        """The defs of method ``name`` in this class's subclasses, of this module (at any
        depth) and of the package's other modules: ``self.<name>()`` in construction code runs
        a subclass's on its objects, so what the class keeps of it is what those return too."""
        found = self._overrides.get(name)
        if found is None:
            found = self._overrides[name] = [
                function for node in self._descendants
                for function in node.body if type(function) in FUNCTIONS and function.name == name]
            package = self.scope.package
            if package is not None and not self.facts.name.startswith("<"):
                found += package.heir_defs(self.facts.name, name, self.scope.path)
        return found

    @cached_property
    def _descendants(self) -> List[ast.ClassDef]:
        """The classes of this module deriving from this one, at any depth."""
        todo, found = [self.facts.name], {}
        while todo:
            base = todo.pop()
            for node in self.scope.class_nodes:
                if node.name not in found and node.name != self.facts.name and any(
                        last_name(b) == base for b in node.bases):
                    found[node.name] = node
                    todo.append(node.name)
        return list(found.values())

    def reaches(self, func: ast.AST) -> bool:
        """The swap hands its pool to the object the call of ``func`` builds."""
        return self.handed_to is None or id(func) in self.kept_handed[1]

    def run(self, params: Optional[Dict[str, Taint]] = None, method: str = "__init__",
            attrs: Optional[Dict[str, Taint]] = None) -> None:
        """``params``: what ``method``'s parameters hold (an object built with them);
        ``attrs``: what its attributes hold before it runs (a record's fields)."""
        env = AttrEnv(sinks=dict(attrs or {}), params={method: dict(params)} if params else {})
        self._handed_by_builders(env)
        kept = _Kept()  # the reuse record: what earlier passes' turns and evaluations did
        self.passes = []
        for at in range(MAX_PASSES):
            earlier = self.earlier.passes if self.earlier is not None else ()
            current = _Pass(self, env, kept, earlier[min(at, len(earlier) - 1)] if earlier
                            else None)
            result = current.run()
            self.passes.append(_Kept(current.turns, current.evaluations))
            # a pass that read only what it leaves behind would be repeated exactly by the next
            # one (same reads, same stores, same gates): its result is already the fixed point
            if result.env == env or current.settled(result.env):
                break
            env, kept = result.env, self.passes[-1]
        facts = self.facts
        facts.per_forward = frozenset(self.per_forward)
        facts.handed_calls = {name: dict(passed) for name, passed in result.env.params.items()
                              if name not in facts.methods and passed}
        facts.stores, facts.gates = result.stores, result.gates
        facts.runner_reads, facts.returns = result.runner_reads, result.returns
        facts.fields = result.fields

    def _handed_by_builders(self, env: AttrEnv) -> None:
        """What builders of other modules hand this class's methods (``backend.configure(
        pool)``: ``ClassSummary.calls`` of a builders' summary): those methods run with it."""
        for summary in self.facts.foreign:
            for name, passed in summary.calls.items():
                function = self.facts.methods.get(name)
                if function is None:
                    continue
                params = params_of(function)
                for key, value in passed.items():
                    index = int(key[1:]) if key.startswith("#") else None
                    param = key if index is None else (
                        params[index] if index < len(params) else None)
                    if param in params:
                        held = env.params.setdefault(name, {})
                        held[param] = held.get(param, CLEAN) | Taint(value)


def _keyed_scan(method: ast.AST) -> Tuple[frozenset, frozenset, Dict[str, list]]:
    """One walk of a method for ``ClassFlow.keyed_dicts``, kept per method (each flow of a
    family asks it of every method, and a class flows for each view of it): the ``self``
    attributes it builds as a dict of constant keys, the ``id`` of each holder it reads or
    builds through a constant key, and attribute -> the ``id`` of each ``self.<attr>`` read."""
    found = _KEYED.get(method)
    if found is not None:
        return found
    built, keyed, used = set(), set(), {}
    for node in nodes_under(method):
        kind = type(node)
        if kind is ast.Attribute and is_self(node.value):
            used.setdefault(node.attr, []).append(id(node))
        elif kind is ast.Subscript and entry_key(node.slice) is not None or (
                kind is ast.Call and type(node.func) is ast.Attribute
                and node.func.attr == "get" and node.args
                and entry_key(node.args[0]) is not None):
            keyed.add(id(node.value if kind is ast.Subscript else node.func.value))
        elif kind is ast.Assign and len(node.targets) == 1 and self_attr(
                node.targets[0]) and type(node.value) is ast.Dict and None not in \
                map(entry_key, node.value.keys):
            built.add(node.targets[0].attr)
            keyed.add(id(node.targets[0]))
    found = _KEYED[method] = (frozenset(built), frozenset(keyed), used)
    return found


# method node -> ``_keyed_scan`` (its nodes' ids hold as long as it, the key, lives)
_KEYED: "weakref.WeakKeyDictionary[ast.AST, tuple]" = weakref.WeakKeyDictionary()


# what a method's turn reads of its class beside its pass's state (``ClassFlow._same_setting``)
_FACETS = ("methods", "wrappers", "properties", "cached_methods", "resolvers", "in_place")
_SETTING = ("per_forward", "resolvers", "in_place", "order", "swap_point", "inner_backends",
            "hands_pool_on", "handed_to", "delegate", "bound", "resets", "patterns")
_ABSENT = object()  # what a memo holds for a key it has no entry for (``_Turn.saw``)
_ENV_TABLES = frozenset(f.name for f in dataclasses.fields(AttrEnv))


def _fresh(value):
    """``value``, a container copied: a memo entry a turn saw or filled is kept as it was."""
    return copy.copy(value) if isinstance(value, (dict, list)) else value


@dataclass
class _Record:
    """What one piece of a pass (a method's turn, a helper's evaluation) saw of the pass's
    state, and what it did to it.

    A piece is deterministic given what it reads: the attribute env (``_Pass._read``) and the
    pass's memos of helper evaluations (``_Memo``); the class's facts, the module scope and the
    package index answer the same all through a class's run (what ``_Pass.settled`` relies
    on). So when every entry of ``saw`` holds the same where the piece starts in a later pass,
    running it again would read the same, do the same and find the same: that pass replays
    ``effects`` (the writes, in their order) and takes what it found instead. ``saw`` holds
    what the piece first read of each entry, unless it had set the entry itself (a recursion
    guard of its own is no input); an entry it or-ed into before (a store remembered, a call's
    arguments) stays one: whatever it held first, the piece reads it or-ed with the same, so
    the value read is compared. Records are the one thing a pass hands the next besides its
    env (``_Kept``), and none changes once complete.

    What the class's surroundings answered (``around``: its same-file bases' facts, summaries
    and functions of other modules, objects built of module classes, runner attributes) is
    noted too. Another analysis of the same tree (the codemod's same-file one, with no package
    index) replays a record of the package analysis's run of the class where, beside ``saw``,
    each of those answers is the same in it (``ClassFlow.earlier``)."""

    saw: Dict[tuple, object] = field(default_factory=dict)  # (table, key) -> value first read
    wrote: set = field(default_factory=set)  # (table, key) it set (not or-ed into)
    reads: Dict[tuple, list] = field(default_factory=dict)  # env reads, for ``settled``
    effects: list = field(default_factory=list)  # (``_Pass`` function, arguments), in order
    opaque: bool = False  # it read in a way ``saw`` cannot hold (a wildcard): never reused
    # (kind, key) -> what the class's surroundings answered (``_Pass._around``): the same all
    # through a run, so only a record of another run of the class compares them
    around: Dict[tuple, object] = field(default_factory=dict)

    def read(self, entry: tuple, value) -> None:
        """``entry`` (``(table, key)``) read holding ``value``: an input unless set here."""
        if entry not in self.saw and entry not in self.wrote:
            self.saw[entry] = _fresh(value)

    def met(self, kind: str, key, value) -> None:
        self.around.setdefault((kind, key), value)

    def heard(self, entry: tuple, value) -> None:
        values = self.reads.get(entry)
        if values is None:
            self.reads[entry] = [value]
        elif value not in values:
            values.append(value)

    def took(self, entry: tuple, value) -> None:
        """An env read (``_Pass._read``): ``read`` and ``heard`` in one call (the flow's
        most frequent one)."""
        if entry not in self.saw and entry not in self.wrote:
            self.saw[entry] = _fresh(value)
        values = self.reads.get(entry)
        if values is None:
            self.reads[entry] = [value]
        elif value not in values:
            values.append(value)

    def did(self, function, arguments: tuple, table: str = "", key=None) -> None:
        self.effects.append((function, arguments))
        if table:
            self.wrote.add((table, key))

    def absorb(self, inner: "_Record") -> None:
        """What ``inner``, a piece run inside this one since it last wrote, read and did."""
        for entry, value in inner.saw.items():
            self.read(entry, value)
        for entry, values in inner.reads.items():
            for value in values:
                self.heard(entry, value)
        for (kind, key), value in inner.around.items():
            self.met(kind, key, value)
        self.effects.extend(inner.effects)
        self.wrote |= inner.wrote
        self.opaque = self.opaque or inner.opaque


@dataclass
class _Turn(_Record):
    """A method's turn in a pass (``_Pass.run``: its flow, its stores remembered, its return)
    and what it found."""

    stores: List[Store] = field(default_factory=list)
    field_sinks: List[Store] = field(default_factory=list)  # kept fields of stored records
    gates: List[Gate] = field(default_factory=list)
    runner_reads: List[ast.Attribute] = field(default_factory=list)
    returned: Optional[Taint] = None  # None: a resolver (no return recorded)


@dataclass
class _Evaluation(_Record):
    """A helper a method's turn evaluated for argument taints (``_Pass._evaluate``), with the
    helpers it evaluated in turn, and what it returned."""

    returned: Taint = CLEAN


@dataclass
class _Kept:
    """The records of earlier passes of a class's run: a method's latest turn, a helper's
    latest evaluation (by its memo key)."""

    turns: Dict[str, _Turn] = field(default_factory=dict)
    evaluations: Dict[tuple, _Evaluation] = field(default_factory=dict)


class _Memo(dict):
    """A memo of one pass (helper evaluations and what they left): a dict that tells the
    records under way (``_Pass.recording``) what it looked up and filled. Only these
    operations are used."""

    def __init__(self, owner: "_Pass", table: str) -> None:
        super().__init__()
        self.owner, self.table = owner, table

    def __contains__(self, key) -> bool:
        return self.get(key, _ABSENT) is not _ABSENT

    def __getitem__(self, key):
        value = self.get(key, _ABSENT)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key, default=None):
        value = dict.get(self, key, _ABSENT)
        if self.owner.recording:
            self.owner.recording[-1].read((self.table, key), value)
        return default if value is _ABSENT else value

    def __setitem__(self, key, value) -> None:
        if self.owner.recording:
            self.owner.recording[-1].did(_Pass.fill, (self.table, key, _fresh(value)),
                                         self.table, key)
        dict.__setitem__(self, key, value)


class _Pass:
    """One pass over every method of a class: the ``FlowOwner`` its method flows query.
    ``kept``: what earlier passes did, reused where what it read is unchanged (``_Record``)."""

    def __init__(self, flow: ClassFlow, env: AttrEnv, kept: Optional[_Kept] = None,
                 other: Optional[_Kept] = None) -> None:
        self.flow, self.facts, self.scope = flow, flow.facts, flow.scope
        self.pool_attr = flow.options.pool_attr
        self.class_names = frozenset(c.name for c in self.facts.family)
        self.class_name = self.facts.name  # (what its factories build: ``cls(...)``)
        self.env = env.copy()  # this pass's own: stores made in it are seen by later reads
        self.memo: Dict[tuple, Taint] = _Memo(self, "memo")
        self.memo_fields: Dict[tuple, Dict[str, Taint]] = _Memo(self, "memo_fields")  # the
        # record a factory returns
        self.memo_globals: Dict[tuple, list] = _Memo(self, "memo_globals")  # the module-global
        # stores a function makes
        self.memo_gates: Dict[tuple, list] = _Memo(self, "memo_gates")  # its decisions on
        # module globals
        self.foreign_globals: Dict[tuple, list] = _Memo(self, "foreign_globals")  # those a
        # function of another module sets (``StoreEvent``s made at the call)
        self.memo_params: Dict[tuple, list] = _Memo(self, "memo_params")  # its stores on
        # objects its parameters hold (``MethodFlow.param_stores``), of this module or another
        self.delegations: Dict[str, Taint] = _Memo(self, "delegations")  # names __getattr__
        # answered -> what it gave
        self.depth = 0
        self.below = 0  # the family index of the base whose __init__ runs (its super() is next)
        self.seen: Dict[tuple, object] = {}  # (table, key) -> what this pass read of ``env``
        self.unsettled = False  # one key read with two different values
        self.kept = kept or _Kept()
        self.other = other  # the same pass of another run of the class (``ClassFlow.earlier``)
        self.turns: Dict[str, _Turn] = {}  # this pass's, for the next one
        self.evaluations = dict(self.kept.evaluations)  # the latest, for the next one
        # the pieces under way, innermost last: the innermost records what is read and done,
        # and hands it to the one around it when it ends (``_Record.absorb``)
        self.recording: List[_Record] = []

    def _read(self, table: str, key: str):
        """``self.env``'s entry, noted for ``settled`` and for the turn under way."""
        if table == "params":  # (``AttrEnv.get``, the flow's most frequent query, in place)
            value = self.env.params.get(key, {})
            kept = dict(value)  # (a params dict fills in place)
        else:
            value = kept = getattr(self.env, table).get(key, CLEAN)
        entry = (table, key)
        if self.seen.setdefault(entry, kept) != kept:  # (``_note``, in place: as frequent)
            self.unsettled = True
        if self.recording:
            self.recording[-1].took(entry, kept)
        return value

    def _note(self, entry: tuple, value) -> None:
        if self.seen.setdefault(entry, value) != value:
            self.unsettled = True

    def settled(self, final: AttrEnv) -> bool:
        """Every read of the pass saw what ``final`` (its own result) holds: the pass is
        deterministic given its reads, so a pass from ``final`` would do exactly the same."""
        return not self.unsettled and all(
            final.get(table, key) == value for (table, key), value in self.seen.items())

    def run(self) -> PassResult:
        stores, gates, reads, returns, fields = [], [], [], {}, {}
        for name in self.flow.order:
            turn = self.turns[name] = self._reused(name) or self._turn(name)
            for store in turn.field_sinks:  # a field of a stored record: a fact, no finding
                fields[store.attr] = fields.get(store.attr, CLEAN) | store.bits
            stores.extend(turn.stores)
            gates.extend(turn.gates)
            reads.extend(turn.runner_reads)
            if turn.returned is not None:
                returns[name] = turn.returned
        # a cache is a store of what its method returns, made by its decorator: reported on the
        # method's def line (a noqa there silences it), whichever return hands the state out
        cached = [n for n, kind in self.facts.properties.items() if kind]
        for name in cached:
            stores.append(Store(name, self.facts.methods[name], None, None, returns.get(
                name, CLEAN), name, True, False, name in self.flow.resolvers))
        for name in sorted(self.facts.cached_methods):  # (keyed by the live pool: no store)
            kept = CLEAN if keyed_by_pool(self._read("params", name).values()) else returns.get(
                name, CLEAN)
            stores.append(Store(name, self.facts.methods[name], None, None, kept, name, True,
                                False, name in self.flow.resolvers))
        fields.update((k, v) for k, v in self.delegations.items() if v & STALE)  # (as fields)
        return PassResult(self.env, stores, gates, reads, returns, fields)

    def _reused(self, name: str) -> Optional[_Turn]:
        """The previous pass's turn of ``name``, else the other run's, replayed, when what it
        read holds the same."""
        turn = self.kept.turns.get(name)
        if turn is not None and self._replayed(turn):
            return turn
        turn = self.other.turns.get(name) if self.other is not None else None
        return turn if turn is not None and self._replayed(turn, across=True) else None

    def _replayed(self, record: _Record, across: bool = False) -> bool:
        """Whether ``record`` holds here (``across``: a record of another run, whose
        surroundings may answer otherwise); if so, its reads and writes are made again (and
        told to the pieces under way, as when it ran)."""
        if record.opaque or any(self._now(table, key) != value
                                for (table, key), value in record.saw.items()):
            return False
        if across and any(self._answer(kind, key) != value
                          for (kind, key), value in record.around.items()):
            return False
        if self.recording:
            self.recording[-1].absorb(_Record(record.saw, set(), record.reads,
                                              around=record.around))
        for entry, values in record.reads.items():
            for value in values:
                self._note(entry, value)
        for function, arguments in record.effects:
            function(self, *arguments)
        return True

    def _now(self, table: str, key):
        if table in _ENV_TABLES:
            return self.env.get(table, key)
        return dict.get(getattr(self, table), key, _ABSENT)

    def fill(self, table: str, key, value) -> None:
        """A memo entry a reused piece filled (``_Record.effects``)."""
        getattr(self, table)[key] = _fresh(value)

    def _around(self, kind: str, key, value):
        """``value``, what the class's surroundings answer for ``(kind, key)`` (its same-file
        bases' facts, summaries of other modules, the package index, the module's objects and
        runners), noted for the record under way (``_Record.met``)."""
        if self.recording:
            self.recording[-1].met(kind, key, value)
        return value

    def _answer(self, kind: str, key):
        """What this run's surroundings answer for ``(kind, key)``, asked of a record of
        another run (``ClassFlow.earlier``: one without a package index, which answers nothing
        of ``effects`` and evaluates no ``inherited`` method)."""
        if kind == "attr":
            return self._outside(key)
        if kind == "returns":
            return self._foreign_return(key)
        if kind == "instance":
            return self.scope.instance(*key, self.flow.options)
        if kind == "runner":
            return self.scope.runner_attr(key, self.flow.options)
        return None

    def _turn(self, name: str) -> _Turn:
        """Method ``name``'s turn, run and recorded."""
        turn = _Turn()
        self.recording.append(turn)
        try:
            self._play(name, turn)
        finally:
            self.recording.pop()
        return turn

    def _play(self, name: str, turn: _Turn) -> None:
        function = self.facts.methods[name]
        passed = dict(self._read("params", name))  # what its callers in the class pass
        if name == "__init__" and self.flow.swap_point and self.flow.handed_to is not None:
            for param in _handed_backends(function, self.facts):  # a wrapper's inners
                if param not in self.flow.kept_handed[0]:  # (kept where the swap hands the
                    passed.setdefault(param, HANDED_INNER)  # pool: it follows)
        flow = MethodFlow(self, function, name, env=passed).run(function.body)
        for wrapper in self.facts.wrappers.get(name, ()):  # (a wrapper runs as the method)
            extra = MethodFlow(self, wrapper, name).run(wrapper.body)
            flow.stores.extend(extra.stores)
            flow.closures.append(extra)
            flow.runner_reads.extend(extra.runner_reads)
        method_stores = [self._store(event, flow) for event in flow.stores]
        for store in [s for s in method_stores if s.scope == "field"]:
            method_stores.remove(store)  # a field of a stored record: a fact, no finding
            if store.sink:
                turn.field_sinks.append(store)
                self._remember(store)
        turn.stores = method_stores
        for store in method_stores:
            self._remember(store)
        turn.gates = list(_gates_of(flow, name))
        turn.runner_reads = flow.runner_reads
        if name not in self.flow.resolvers:
            returned = self.method_returns(name, ()) if name in self.facts.properties \
                else flow.returned
            if name in self.facts.cached_methods and returned:
                returned |= STALE  # functools.cache keeps the first call's answer
            self._returned(name, returned)
            turn.returned = returned

    def _store(self, event, flow: MethodFlow) -> Store:
        sink = event.scope == "cache" or not flow.per_forward or (
            event.lazy and not _reset(event.memo, self.flow.resets))
        # a method asking the allocator resolves the pool it stores (and mirrors of it); what
        # else it keeps (a kind picked by a test of the active pool, its buffers, a verdict) is
        # judged as anywhere: a builder that also asks the allocator resolves nothing else by it
        taint = event.taint
        if event.scope == "self" and type(event.value) is ast.Dict and _pool_keyed_memo(
                event.attr, event.value, self.facts.family):
            taint = CLEAN  # {pool: plan} looked up by the live pool only: a miss, not stale
        pool_attr = event.attr == self.flow.options.pool_attr
        resolved = flow.resolver and (pool_attr or not (
            taint & (TYPE | CHOICE | KIND | RUNNER | GATED) or taint & SWA and not taint & POOL)
        ) or event.attr in self.flow.in_place.get(flow.name, ()) and (pool_attr or not (
            taint & (TYPE | CHOICE | KIND | RUNNER | GATED) or taint & SWA and not taint & POOL))
        return Store(event.attr, event.node, event.statement, event.value, taint,
                     flow.name, sink, event.alone, resolved, event.scope, event.under)

    def _remember(self, store: Store) -> None:
        if store.scope == "module" and not store.sink:
            return  # a module global set per forward (a memo refreshed for each pool): fresh
        name = "globals" if store.scope == "module" else "sinks" if store.sink else "forward"
        if self.recording:  # (or-ed in: a later read of it is an input)
            self.recording[-1].did(_Pass._remember, (store,))
        table = getattr(self.env, name)
        table[store.attr] = table.get(store.attr, CLEAN) | store.bits
        root, dot, _ = store.attr.partition(".")
        if name == "globals" and (root in self.scope.imports or dot and root not in (
                self.scope.globals)):  # (another module's global, as the index names it)
            table[IMPORTED_GLOBALS] = table.get(IMPORTED_GLOBALS, CLEAN) | store.bits

    def _returned(self, name: str, returned: Taint) -> None:
        if self.recording:
            self.recording[-1].did(_Pass._returned, (name, returned), "returns", name)
        self.env.returns[name] = returned

    # -- FlowOwner ------------------------------------------------------------------------------
    def is_per_forward(self, name: str) -> bool:
        return name in self.flow.per_forward

    def is_resolver(self, name: str) -> bool:
        return name in self.flow.resolvers

    def keeps_result(self, name: str) -> bool:
        """A ``cached_property`` or a ``functools`` cached method of the class."""
        facts = self.facts
        return facts.properties.get(name, False) or name in facts.cached_methods

    def attr_value(self, path: str) -> Taint:
        """What reading ``self.<path>`` yields: its stores outside per-forward methods (and
        stale per-forward ones), a property's value, or what a base class stored."""
        if path == self.pool_attr:
            return CLEAN
        if any(path in c.properties for c in self.facts.family):
            return self.method_returns(path, ())
        inner, _, name = path.partition(".")
        if name and f"inner:{inner}" in self.flow.inner_backends:
            # another backend's pool, or its SWA flag, copied: what it held when copied
            if name == ACTIVE_POOL:
                return POOL | STALE
            if is_flag_name(name):
                return TYPE | STALE
        prop, outside = self._around("attr", path, self._outside(path))
        if prop is not None:
            return prop
        bits = self._read("sinks", path)
        for pattern in self.flow.patterns:  # setattr(self, f"_{mode}_map", ...)
            if fnmatchcase(path, pattern) and pattern != path:
                bits |= self._read("sinks", pattern)
        if "*" in path:  # getattr(self, f"_{mode}_map"): any stored name it may be
            if self.recording:  # (which names are stored: no entry of ``saw``)
                self.recording[-1].opaque = True
            for attr in [a for a in self.env.sinks if a != path and fnmatchcase(a, path)]:
                bits |= self._read("sinks", attr)
        stale_forward = self._read("forward", path)
        if stale_forward & STALE and not stale_forward & RECORD:  # (a record is rebuilt)
            bits |= stale_forward
        bits |= outside
        if not bits and self._delegated_name(path):
            return self.delegated(path)
        return bits | STALE if bits else CLEAN

    def _outside(self, path: str) -> tuple:
        """(the value of a property ``path`` of a base of another module, None when none has
        it; what same-file bases and summaries of other modules store in ``self.<path>``)."""
        for summary in self.facts.foreign:
            if path in summary.properties:
                return Taint(summary.properties[path]), CLEAN
        bits = CLEAN
        for cls in self.facts.family[1:]:
            bits |= _sink_of(cls, path)
        for summary in (*self.facts.foreign, *self.facts.heirs):  # (a summary holds Taints)
            bits |= summary.stores.get(path, CLEAN)
        return None, bits

    def _delegated_name(self, path: str) -> bool:
        """``self.<path>`` is answered by ``__getattr__``: nothing of the class binds it."""
        return self.flow.delegate is not None and "." not in path and not path.startswith(
            "__") and path not in self.flow.bound and not any(
            path in c.methods for c in self.facts.family)

    def delegated(self, path: str) -> Taint:
        """What ``__getattr__`` returns for the name ``path`` (``getattr(self._view, name)``
        delegating to a stored pool gives that pool's ``path``)."""
        key = ("getattr", path, ())
        if key not in self.memo:
            self.memo[key] = CLEAN  # recursion guard
            function = self.flow.delegate
            flow = MethodFlow(self, function, "__getattr__", record=False)
            params = params_of(function)
            if params:
                flow.strings[params[0]] = path
            self.memo[key] = flow.run(function.body).returned
            self.delegations[path] = self.memo[key]
        return self.memo[key]

    def global_value(self, name: str) -> Taint:
        value = self._read("globals", name)
        return value | STALE if value else CLEAN

    def imported_global(self, module: str, name: str) -> Optional[str]:
        """``module.name`` where ``module`` is an imported module of the package: its global
        ``name`` as the index names it (``global_name``), when this class stored into it (a
        function of that module called here set it); else None."""
        package = self.scope.package
        target = self.scope.imports.get(module)
        if package is None or target is None or not self._read("globals", IMPORTED_GLOBALS):
            return None
        found = package.global_name(f"{target}.{name}", self.scope.path)
        return found if found is not None and self.global_value(found) else None

    def module_global(self, module: str, name: str) -> Optional[str]:
        """``module.name`` where ``module`` is an imported module of the package: its global
        ``name`` as the index names it (``global_name``), stored into or not; else None."""
        package = self.scope.package
        target = self.scope.imports.get(module)
        if package is None or target is None:
            return None
        return package.global_name(f"{target}.{name}", self.scope.path)

    def method_returns(self, name: str, arguments: Tuple[Taint, ...],
                       given_self: Tuple[int, ...] = (), bound: bool = True) -> Taint:
        """What ``self.<name>(...)`` returns for arguments holding these taints; the
        arguments at ``given_self`` are the backend itself (``self._pick(self)``: what the
        method reads off that parameter is ours, live), ``bound``: as ``given_self``
        (``_installed.given_self``) says."""
        owner = next((c for c in self.facts.family if name in c.methods), None)
        if owner is None:
            return self._inherited_returns(name, arguments) | self._foreign_returns(name)
        if name in owner.resolvers or returns_nothing(owner.methods[name]):
            return CLEAN  # (one returning nothing is not run for it: its turn runs it)
        function = owner.methods[name]
        if given_self:
            function = _given_self(function, given_self, bound)
            if function is None:
                return CLEAN
        key = _method_key(name, arguments, given_self, bound)
        arguments = key[2]
        if key not in self.memo:
            if self.depth >= MAX_DEPTH:
                return self._read("returns", name)
            returned = self._evaluate(key, function, name)
            cached = owner.properties.get(name, False) or name in owner.cached_methods
            self.memo[key] = returned | (STALE if cached and returned and not keyed_by_pool(
                arguments) else CLEAN)
        return self.memo[key]

    def override_returns(self, name: str, arguments: Tuple[Taint, ...]) -> Taint:
        """What the subclasses' overrides of method ``name`` return for these arguments
        (``ClassFlow.overrides``): a base keeping ``self._detect(pool)`` in ``__init__`` keeps
        what a heir's ``_detect`` derives from the pool."""
        found = CLEAN
        for function in self.flow.overrides(name):
            key = ("override", id(function), arguments)
            if key not in self.memo:
                self.memo[key] = CLEAN if self.depth >= MAX_DEPTH or _mentions(
                    function, (ALLOCATOR, ALLOCATOR_POOL)) else self._evaluate(key, function, name)
            found |= self.memo[key]
        return found

    def _evaluate(self, key: tuple, function: ast.AST, name: str, klass: str = "",
                  keywords: tuple = ()) -> Taint:
        """What ``function`` returns for the argument taints in ``key`` and these keyword
        arguments (nothing recorded); ``klass``: a factory method of that class (its ``cls`` is
        no argument). An earlier pass's evaluation of ``key`` is reused where it holds."""
        self.memo[key] = CLEAN  # recursion guard
        if self.depth:  # (a helper of a helper: part of the record of the outermost one)
            return self._evaluated(key, function, name, klass, keywords)
        kept = self.kept.evaluations.get(key)
        if kept is not None and self._replayed(kept):
            self.evaluations[key] = kept
            return kept.returned
        kept = self.other.evaluations.get(key) if self.other is not None else None
        if kept is not None and self._replayed(kept, across=True):
            self.evaluations[key] = kept
            return kept.returned
        record = _Evaluation()
        self.recording.append(record)
        try:
            record.returned = self._evaluated(key, function, name, klass, keywords)
        finally:
            self.recording.pop()
        if self.recording:
            self.recording[-1].absorb(record)
        self.evaluations[key] = record
        return record.returned

    def _evaluated(self, key: tuple, function: ast.AST, name: str, klass: str,
                   keywords: tuple) -> Taint:
        self.depth += 1
        try:
            return self._flowed_helper(key, function, name, klass, keywords)
        finally:
            self.depth -= 1

    def _flowed_helper(self, key: tuple, function: ast.AST, name: str, klass: str,
                       keywords: tuple) -> Taint:
        params = params_of(function)
        if klass and "classmethod" in _decorator_names(function) and function.args.args and \
                function.args.args[0].arg not in ("self", "cls"):
            params = params[1:]  # (a classmethod's first parameter under another name)
        env = dict(zip(params, key[2]))
        _bind_keywords(env, function, keywords)
        flow = MethodFlow(self, function, name, env=env, record=False, klass=klass)
        flow.run(function.body)
        if flow.returned_fields:
            self.memo_fields[key] = flow.returned_fields
        if flow.global_stores:
            self.memo_globals[key] = flow.global_stores
        if flow.param_stores:
            self.memo_params[key] = flow.param_stores
        if flow.gates:  # (a summary records its decisions on module globals only)
            self.memo_gates[key] = list(flow.gates.values())
        return flow.returned

    def _inherited_returns(self, name: str, arguments: Tuple[Taint, ...]) -> Taint:
        """What a method of a base class in another module returns for these arguments, run
        on this class's ``self`` (``self._swa_pool_of(pool)``); its summary alone knows only
        what it returns for untainted ones."""
        package = self.scope.package
        if package is None or not any(arguments):
            return CLEAN
        key = ("inherited", name, arguments)
        if key not in self.memo:
            function = self._inherited_def(name)
            if function is None or self.depth >= MAX_DEPTH or _mentions(
                    function, (ALLOCATOR, ALLOCATOR_POOL)):
                return CLEAN  # (a resolver: the fix itself)
            self._around("inherited", key, True)  # (evaluated: no run without an index does)
            self.memo[key] = self._evaluate(key, function, name)
        return self.memo[key]

    def _inherited_def(self, name: str, family: Optional[list] = None) -> Optional[ast.AST]:
        """Method ``name`` of a base, in another module, of this class's family (or of its
        members ``family``; None: none, or no package index)."""
        package = self.scope.package
        return None if package is None else next((
            found for cls in (self.facts.family if family is None else family)
            for base in cls.node.bases
            for found in [self._base_method(package, base, name)] if found is not None), None)

    def _base_method(self, package, base: ast.AST, name: str) -> Optional[ast.AST]:
        qualified = self.scope.qualified(base)
        return package.method_def(qualified, name) if qualified else None

    def _foreign_returns(self, name: str) -> Taint:
        found = self._around("returns", name, self._foreign_return(name))
        if found is not None:
            return found
        # no method of that name: a stored callable (a closure, a bound method, a partial)
        # returns what it holds; a pool called is a reference to it (weakref.ref(pool)())
        stored = self.attr_value(name)
        if stored & RECORD:
            return stored & ~RECORD
        return stored if stored & POOL and not stored & BUILT else CLEAN

    def _foreign_return(self, name: str) -> Optional[Taint]:
        return next((Taint(summary.returns[name]) for summary in self.facts.foreign
                     if name in summary.returns), None)

    def function_returns(self, func: ast.AST, arguments: Tuple[Taint, ...],
                         follow: bool = True, keywords: tuple = (),
                         given_self: Tuple[int, ...] = ()) -> Optional[Taint]:
        """What a function of this module or (``follow``: some argument carries state or is a
        runner) of another module of the package returns for these argument taints and
        ``(name, taint)`` keyword arguments; the arguments at ``given_self`` are the backend
        itself (a function of this module: ``method_returns``)."""
        scope = self.scope
        local = self._local_call(func, arguments, keywords, given_self)
        if local is not None:
            key, function, klass = local
            if function is None or (scope.is_resolver(key[1]) if not klass else _mentions(
                    function, (ALLOCATOR, ALLOCATOR_POOL))):
                return CLEAN
            if key not in self.memo:
                if self.depth >= MAX_DEPTH:
                    return CLEAN
                self.memo[key] = self._evaluate(key, function, key[1], klass, keywords)
            return self.memo[key]
        kept = self._kept_globals_read(func) if scope.package is not None else CLEAN
        qualified = scope.qualified(func) if follow or given_self and scope.package else None
        if not follow and qualified is not None and not scope.package.reads_pool(qualified):
            qualified = None  # handed the backend: followed where its module reads a pool
        if qualified is not None and scope.package is not None:
            found = self._around("effects", (qualified, arguments, keywords, given_self),
                                 scope.package.function_effects(qualified, arguments, keywords,
                                                                given_self))
            if found is None:
                return kept or None
            if found[1]:  # the fields of the record a factory of another module builds
                self.memo_fields[("package", qualified, arguments, keywords)] = found[1]
            if found[2]:  # the globals of its module it sets: stores this call makes
                self.foreign_globals[(qualified, arguments, keywords, given_self)] = [
                    StoreEvent(name, None, None, None, Taint(taint), False, bool(memo), "module",
                               memo, Taint(under)) for name, taint, under, memo in found[2]]
            if found[3]:  # what it stores on objects it is handed
                self.memo_params[("package", qualified, arguments, keywords, given_self)] = [
                    (index, path, Taint(taint)) for index, path, taint in found[3]]
            return Taint(found[0]) | kept
        return kept or None

    def callee_def(self, func: ast.AST) -> Optional[ast.AST]:
        """The def a call of ``func`` runs: a method of this class's family or of a base in
        another module (``self.<m>``), a function or factory of this module, or a module
        function of the package; None when unknown."""
        scope = self.scope
        if type(func) is ast.Attribute and is_self(func.value):
            owner = next((c for c in self.facts.family if func.attr in c.methods), None)
            return owner.methods[func.attr] if owner is not None else self._inherited_def(
                func.attr)
        local = self._module_callable(func)
        if local is not None:
            return local[1]
        qualified = scope.qualified(func) if scope.package is not None else None
        found = scope.package.function_def(qualified) if qualified else None
        return found[0] if found is not None else None

    def held_method(self, attr: str, name: str) -> Optional[ast.AST]:
        """The def of method ``name`` of the object ``self.<attr>`` holds, when a method of the
        family built it (``self.<attr> = Klass(...)``: ``ClassFlow.made_attrs``) of a class of
        this module or the package; None when unknown."""
        klass = self.flow.made_attrs.get(attr)
        node = self.scope.class_of(ast.Name(id=klass, ctx=ast.Load())) if klass else None
        return next((s for s in node.body if type(s) in FUNCTIONS and s.name == name),
                    None) if node is not None else None

    def _kept_globals_read(self, func: ast.AST) -> Taint:
        """What a function of another module reads of the module globals of its module that
        this class stored into (``SWA_TRANSLATORS[name] = pool.translate_loc_from_full_to_swa``
        of an imported table, read back through ``registry.translator_for(name)``)."""
        if not self._read("globals", IMPORTED_GLOBALS):
            return CLEAN  # (read as any entry: a pass that stores one later runs again)
        qualified = self.scope.qualified(func)
        found = self.scope.package.function_globals_read(qualified) if qualified else None
        if not found:
            return CLEAN
        module, names = found
        package, near = self.scope.package, self.scope.path
        value = union(self.global_value(f"{module}.{name}") for name in names)  # (set by a
        for local, target in self.scope.imports.items():  # call of a function of its own)
            head, _, name = target.rpartition(".")  # (spelled as the import spells it)
            if package.same_module(target, module, near):  # from . import registry:
                value |= union(self.global_value(f"{local}.{name}") for name in names)  # its
            elif name in names and package.same_module(head, module, near):  # tables' names
                value |= self.global_value(local)  # from .registry import SWA_TRANSLATORS
        return element(value) | STALE if value else CLEAN  # (what it hands out of them)

    def _local_call(self, func: ast.AST, arguments: Tuple[Taint, ...], keywords: tuple,
                    given_self: Tuple[int, ...]) -> Optional[tuple]:
        """``(key, def, class)`` of a call of a function of this module (``_module_callable``)
        with these arguments: the def as given the backend at ``given_self`` (None when it
        takes no parameter there), those arguments left out of the key's."""
        local = self._module_callable(func)
        if local is None and given_self:  # helpers.mark(self): as placed at the call
            spelled = handed_name(func)
            local = next(((spelled, cls.placed[spelled], "") for cls in self.facts.family
                          if spelled in cls.placed), None)
        if local is None:
            return None
        name, function, klass = local
        if not given_self:
            return ("function", name, arguments, keywords), function, klass
        function = _given_self(function, given_self, False)
        arguments = tuple(v for i, v in enumerate(arguments) if i not in given_self)
        return ("function", name, arguments, keywords, given_self), function, klass

    def _module_callable(self, func: ast.AST) -> Optional[Tuple[str, ast.AST, str]]:
        """``(name, def, class)`` for a function of this module (``helper``) or a factory of
        one of its classes that is no backend of this family (``Facts.of``: a classmethod or
        staticmethod, whose ``cls(...)`` builds that class)."""
        scope = self.scope
        if isinstance(func, ast.Name) and func.id in scope.functions:
            return func.id, scope.functions[func.id], ""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = func.value.id
            if owner in scope.classes and owner not in self.class_names:
                method = factory_method(scope.classes[owner], func.attr)
                if method is not None:
                    return f"{owner}.{func.attr}", method, owner
        return None

    def method_fields(self, name: str, arguments: Tuple[Taint, ...],
                      given_self: Tuple[int, ...] = (), bound: bool = True) -> Dict[str, Taint]:
        """The fields of the record or object ``self.<name>(...)`` returns for these arguments
        (known once ``method_returns`` evaluated it): a helper building ``Builder(pool.x)``."""
        return self.memo_fields.get(_method_key(name, arguments, given_self, bound), {})

    def function_fields(self, func: ast.AST, arguments: Tuple[Taint, ...],
                        keywords: tuple = (), given_self: Tuple[int, ...] = ()) -> Dict[str, Taint]:
        """The fields of the record a function of this module returns for these arguments
        (known once ``function_returns`` evaluated it)."""
        local = self._local_call(func, arguments, keywords, given_self)
        if local is None:  # (a factory of another module, once function_returns asked)
            qualified = self.scope.qualified(func)
            return self.memo_fields.get(("package", qualified, arguments, keywords), {})
        return self.memo_fields.get(local[0], {})

    def function_globals(self, func: ast.AST, arguments: Tuple[Taint, ...],
                         keywords: tuple = (), given_self: Tuple[int, ...] = ()) -> list:
        """The stores of module globals (``global X``, a module container) a function of this
        module makes when called with these arguments (``StoreEvent``s; known once evaluated)."""
        local = self._local_call(func, arguments, keywords, given_self)
        if local is None:  # (of another module, once function_returns asked: at the call)
            return self.foreign_globals.get((self.scope.qualified(func), arguments, keywords,
                                             given_self), []) if self.foreign_globals else []
        return self.memo_globals.get(local[0], [])

    def function_param_stores(self, func: ast.AST, arguments: Tuple[Taint, ...],
                              keywords: tuple = (), given_self: Tuple[int, ...] = ()) -> list:
        """``(position, path, taint)`` of each store a function of this module or of the
        package makes on an object an argument holds, called with these arguments (known once
        evaluated): ``prime(meta, pool)`` setting ``meta.enabled``."""
        local = self._local_call(func, arguments, keywords, given_self)
        if local is None:
            return self.memo_params.get(("package", self.scope.qualified(func), arguments,
                                         keywords, given_self), [])
        return self.memo_params.get(local[0], [])

    def function_gates(self, func: ast.AST, arguments: Tuple[Taint, ...],
                       keywords: tuple = (), given_self: Tuple[int, ...] = ()) -> list:
        """The decisions on module globals a function of this module makes when called with
        these arguments (``_flow.GateEvent``s; known once evaluated): its caller's gates."""
        local = self._local_call(func, arguments, keywords, given_self)
        return self.memo_gates.get(local[0], []) if local else []

    def is_cached_function(self, func: ast.AST) -> bool:
        return isinstance(func, ast.Name) and func.id in self.scope.cached

    def is_record_type(self, func: ast.AST) -> bool:
        """A record class (of the module or imported from the package) whose fields are its
        arguments (one whose ``__post_init__`` derives fields is built as an object:
        ``constructed``)."""
        return self.scope.record_fields(func) is not None

    def constructed(self, func: ast.AST, arguments: Tuple[Taint, ...],
                    keywords: Tuple[Tuple[str, Taint], ...],
                    site: Optional[ast.AST] = None) -> Optional[Built]:
        """An object of a known class built in this class: what it keeps for this class. A
        ``token_to_kv_pool`` setter here (or a method handing the pool on) makes the swap
        reach the object's own pool; an inner backend's own state is its own class's finding,
        so what this class adds is a swap of its own pool that does not reach it, and the pool
        state this class handed it that it keeps."""
        key = (func, arguments, keywords)
        instance = self._around("instance", key, self.scope.instance(*key, self.flow.options))
        if instance is None:
            return None
        fields = dict(instance.fields)
        reached = self.flow.reaches(site if site is not None else func)
        if reached:
            fields.pop(ACTIVE_POOL, None)
        if instance.backend:  # what it holds for this class: its pool, when a swap misses it,
            # and the pool state it was handed (Inner(runner, kv_pool=pool.swa_kv_pool))
            own_kind = last_name(func) in self.class_names | {
                b for c in self.facts.family for b in c.bases}  # per-step copies of itself
            unreached = instance.swap_point and self.flow.swap_point and not (
                reached or own_kind)
            pool = POOL | STALE if unreached else CLEAN
            kept = union(fields.values())
            return Built({**fields, ACTIVE_POOL: pool}, (pool | INNER if pool else CLEAN) | kept,
                         False, bound=False)
        return Built(fields, union(fields.values()), instance.loose, entered=instance.entered)

    def record_fields(self, func: ast.AST) -> Tuple[str, ...]:
        return self.scope.record_fields(func) or ()

    def type_names_swa(self, node: ast.AST) -> bool:
        return self.scope.names_swa(node)

    def is_module_global(self, name: str) -> bool:
        return name in self.scope.globals

    def placed_global(self, qualified: str) -> Optional[str]:
        package = self.scope.package
        return None if package is None else package.global_name(qualified, self.scope.path)

    def getter(self, func: ast.AST) -> Optional[str]:
        if isinstance(func, ast.Name):  # fetch = attrgetter(...) of the module
            return self.scope.getters.get(func.id)
        attr = self_attr(func) if isinstance(func, ast.Attribute) else None
        return self.flow.getter_attrs.get(attr) if attr else None  # one kept on self

    def caller(self, func: ast.AST) -> Optional[ast.Call]:
        return self.scope.callers.get(func.id) if isinstance(func, ast.Name) else None

    def bound_call(self, name: str) -> Optional[Tuple[ast.expr, bool]]:
        target = self.scope.bound_call(name)
        return None if target is None else (target, name in self.scope.functions)

    def function_table(self, iterated: ast.AST) -> Optional[Tuple[str, list]]:
        """``(kind, [(key, function), ...])`` when a loop iterates a module table of functions
        (``PROBES.items()``, ``.values()``, a tuple of them: ``ModuleScope.function_table``)."""
        node, kind = iterated, "keys"
        if type(node) is ast.Call and type(node.func) is ast.Attribute and not node.args and (
                node.func.attr in ("items", "values")):
            kind, node = node.func.attr, node.func.value
        rows = self.scope.function_table(node.id, kind) if type(node) is ast.Name else None
        return (kind, rows) if rows else None

    def held_list(self, attr: str) -> Optional[list]:
        return self.flow.held_lists.get(attr)

    def makes_generator(self, func: ast.AST) -> bool:
        """A call of ``func`` makes a generator object, whose frame keeps what it was handed
        while it lives (a function of the module or the package, or a method of ours, with a
        ``yield``; not a ``contextmanager``, which hands out what it yields)."""
        function = self.callee_def(func)
        return function is not None and is_generator(function) and not _decorator_names(
            function) & {"contextmanager", "asynccontextmanager"}

    def class_bound_call(self, attr: str) -> Optional[ast.expr]:
        """What ``self.<attr>(...)`` calls when a class of the family binds ``attr`` in its
        body to ``staticmethod(f)`` or a ``functools.partial`` (neither binds ``self``)."""
        for cls in self.facts.family:
            if attr in cls.methods:
                return None
            for statement in cls.node.body:
                if type(statement) is ast.Assign and any(
                        type(t) is ast.Name and t.id == attr for t in statement.targets):
                    value = statement.value
                    unwrapped = _callable_binding(value)
                    if unwrapped is not None and unwrapped is not value or (
                            type(unwrapped) is ast.Call):  # (a plain function would be bound)
                        return unwrapped
        return None

    def holds_backend(self, attr: str) -> bool:
        return holds_backend(self.facts.family, attr)

    def backs_onto(self, attr: str) -> bool:
        """``self.<attr>`` of a helper object is the backend that built it (``Helper(self)``:
        ``self.backend = backend``): its ``token_to_kv_pool`` is the pool a FROZEN_KV swap
        rebinds, read as a backend reads its own (live where the backend calls the helper, kept
        where the helper is built or memoises it)."""
        return attr in _back_references(self.facts, self.scope, self.flow.options)

    def module_strings(self, name: str) -> tuple:
        return self.scope.strings.get(name, ())

    def class_string(self, name: str) -> Optional[str]:
        return self.flow.class_strings.get(name)

    def is_module_class(self, name: str) -> bool:
        return name in self.scope.classes

    def keyed_dict(self, attr: str) -> bool:
        return attr in self.flow.keyed_dicts

    def is_module_object(self, name: str) -> bool:
        """A name the module binds by assignment or def (not an import), or a class it
        defines or imports (``Metadata.uses_swa = ...``: a class attribute of a class not of
        this family, kept as long as the class is; the family's own are class attributes; a
        function's attribute, ``pick.windowed = ...``, lives as long as the function)."""
        scope = self.scope
        if name in scope.classes or name in scope.imports and is_class_name(name):
            return True
        return name in scope.globals and name not in scope.imports

    def is_imported(self, name: str) -> bool:
        """A name the module binds by an import (a module, or an object of another module)."""
        return name in self.scope.imports

    def is_live_view(self, name: str) -> bool:
        """A property (not cached) of the class, its same-file relatives or, with a package
        index, its bases of other modules: each read runs it again."""
        return any(c.properties.get(name) is False for c in self.facts.family) or any(
            name in summary.properties and name not in summary.stores
            for c in self.facts.family for summary in c.foreign)

    def is_descriptor(self, func: ast.AST) -> bool:
        """A class of the module defining ``__get__``: an instance kept as a class attribute
        answers each read of it with what ``__get__`` returns (its own fields, as built)."""
        node = self.scope.classes.get(func.id) if type(func) is ast.Name else None
        return node is not None and any(
            isinstance(s, FUNCTIONS) and s.name == "__get__" for s in node.body)

    def holds_runner(self, attr: str) -> bool:
        return f"runner:{attr}" in self.flow.inner_backends

    def is_runner_flag(self, name: str) -> bool:
        return is_flag_name(name) or name in self.scope.runner_flags

    def runner_attr(self, attr: str) -> Taint:
        return self._around("runner", attr, self.scope.runner_attr(attr, self.flow.options))

    def called_object(self, klass: str, attr: str = "__call__") -> Optional[Tuple[str, bool]]:
        if klass in self.scope.backend_names(self.flow.options):
            return None  # (an inner backend's methods are its own class's business)
        return self.scope.called_object(klass, attr)

    def handed_keeps(self, klass: str, method: str, arguments: Tuple[Taint, ...],
                     keywords: Tuple[Tuple[str, Taint], ...]) -> Taint:
        """What an object of class ``klass`` (of this module or the package) keeps once its
        ``method`` is called with these arguments: the pool state stored on it then."""
        instance = self.scope.instance(ast.Name(id=klass, ctx=ast.Load()), arguments, keywords,
                                       self.flow.options, method)
        if instance is None:
            return CLEAN
        kept = STATE | (union((*arguments, *(v for _, v in keywords))) & PICKERS)
        return union(v for v in instance.fields.values() if v & kept)

    def made_by(self, name: str, scope: str) -> Optional[str]:
        """The class of the module a module global (``scope`` "module") or a ``self``
        attribute (``"self"``) was made by, ``_LAYOUT = Layout()``, ``self.layout = Layout()``
        in a method of the class."""
        return (self.scope.objects if scope == "module" else self.flow.made_attrs).get(name)

    def fills_from_pool(self, klass: str, method: str, attr: str) -> bool:
        """Method ``method`` of the module's helper class ``klass``, which ``self.<attr>``
        holds, fills the object once from the pool it reads (``pool_fill_methods``), and no
        per-forward method empties it (``self.<attr>.reset()`` of a method emptying its
        state: ``pool_reset_methods``); never an inner backend's (its own class's business)."""
        node = self.scope.classes.get(klass)
        if node is None or klass in self.scope.backend_names(self.flow.options) or (
                method not in pool_fill_methods(node)):
            return False
        resets = pool_reset_methods(node)
        return not any(
            type(n) is ast.Call and type(n.func) is ast.Attribute and (
                n.func.attr in resets and self_attr(n.func.value) == attr
                or n.func.attr == "clear" and (self_path(n.func.value) or "").startswith(
                    attr + "."))  # self.helper._by_layer.clear(): emptied by the backend
            or type(n) is ast.Assign and empty_value(n.value) and any(
                (self_path(t) or "").startswith(attr + ".") for t in n.targets)
            for c in self.facts.family for name in self.flow.per_forward
            if name in c.methods for n in nodes_under(c.methods[name]))

    def base_keeps(self, arguments: tuple, keywords: tuple,
                   method: str = "__init__") -> List[Tuple[str, Taint]]:
        """``(attr, taint)`` for each attribute the constructor (or ``method``) of this class's
        base in the file keeps on ``self`` when ``super().__init__(...)`` (``self.<method>(...)``,
        a mixin's ``_bind(pool)``) hands it arguments holding these taints (the base alone keeps
        what its own callers give it: nothing derived)."""
        if method != "__init__" and (method in self.facts.methods or (
                self.facts.name.startswith("<"))):  # the class's own method runs its own turn
            return []  # with what it is handed; so does the built class's, in a builder's view
        family = self.facts.family
        # super().__init__ inside a base's __init__ runs the next base's (a chain of them)
        start = self.below + 1 if method == "__init__" else 1
        index = next((i for i in range(start, len(family)) if method in family[i].methods),
                     None)
        function = family[index].methods[method] if index is not None else (  # (a mixin's or
            self._inherited_def(method, family[start - 1:]))  # a base's of another module
        if function is None or self.depth >= MAX_DEPTH:  # too: super().__init__(**kw))
            return []
        # (an inner backend handed on is the base's own business: its flow says what the swap
        # reaches, as it does for every class that hands the base its inners)
        arguments = tuple(CLEAN if v & INNER else v for v in arguments)
        keywords = tuple((k, v) for k, v in keywords if not v & INNER)
        if not any(arguments) and not keywords:
            return []
        self.depth += 1  # (a base's own super().__init__ is its base's business here too)
        below, self.below = self.below, (len(family) if index is None else index) if (
            method == "__init__") else self.below
        try:
            flow = MethodFlow(self, function, method, env=_bound(function, arguments, keywords))
            spread = keyword_binding(function, keywords)[1]
            if spread:  # **kwargs: which keyword holds what (handed on, read by name)
                flow.keyed[function.args.kwarg.arg] = spread
            flow.run(function.body)
        finally:
            self.depth -= 1
            self.below = below
        return [(e.attr, e.taint) for e in flow.stores if e.scope == "self" and e.taint and
                e.attr != ACTIVE_POOL]  # (the pool itself handed on: the swap point)

    def note_call(self, name: str, arguments: tuple, keywords: dict) -> None:
        """``self.<name>(...)`` passes these taints: the method runs with them next pass."""
        function = self.facts.methods.get(name)
        if function is None and not self.facts.builders:
            return
        if self.recording:  # (or-ed in)
            self.recording[-1].did(_Pass.note_call, (name, arguments, dict(keywords)))
        if function is None:  # a builder calls a method of the class it built: its own flow
            passed = self.env.params.setdefault(name, {})  # runs it so (``handed_calls``)
            for key, value in [*((f"#{i}", v) for i, v in enumerate(arguments)),
                               *keywords.items()]:
                if value:
                    passed[key] = passed.get(key, CLEAN) | value
            return
        params = params_of(function)
        passed = self.env.params.setdefault(name, {})
        for param, value in [*zip(params, arguments), *keywords.items()]:
            if value and param in params:
                passed[param] = passed.get(param, CLEAN) | value


def _resets(facts: ClassFacts, per_forward,
            foreign: Dict[str, List[ast.AST]]) -> frozenset:
    """Memos every forward empties (``self.x = None`` / ``{}``, ``self.x.clear()`` as a
    statement of a per-forward method's own body; a module global too, named as
    ``MethodFlow.memo_holder`` names it): what a lazy fill keeps lives one forward. A holder
    every forward builds anew (``self.forward_metadata = Metadata(...)``, here or in a base,
    ``foreign``: of another module) resets its fields: ``if self.forward_metadata.loc is
    None:`` fills this forward's record (``_reset``)."""
    found = set()
    for name in per_forward:
        function = facts.methods.get(name)
        bases = [c.methods[name] for c in facts.family if c is not facts and name in c.methods]
        bases += foreign.get(name, ())
        for statement in _rebuilt([function, *bases]):
            targets = getattr(statement, "targets", None) or [statement.target]
            found.update(f"{path}." for path in map(self_path, targets) if path)
        for statement in getattr(function, "body", ()):
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and empty_value(statement.value):
                targets = getattr(statement, "targets", None) or [statement.target]
                found.update(_emptied(t, function, False) for t in targets)
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                func = statement.value.func
                if isinstance(func, ast.Attribute) and func.attr == "clear":
                    found.add(_emptied(func.value, function, True))
    found.discard("")
    return frozenset(found)


def _rebuilt(functions: list) -> List[ast.stmt]:
    """The statements of these bodies storing an object built anew (``self.x = Metadata(...)``,
    or ``md = Metadata()`` ... ``self.x = md``)."""
    found = []
    for function in functions:
        made = set()  # locals the body binds to a new object
        for statement in getattr(function, "body", ()):
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
                continue
            value = statement.value
            new = type(value) is ast.Call or type(value) is ast.Name and value.id in made
            targets = getattr(statement, "targets", None) or [statement.target]
            for target in targets:
                if type(target) is ast.Name:
                    (made.add if new else made.discard)(target.id)
            if new:
                found.append(statement)
    return found


def _reset(memo: str, resets: frozenset) -> bool:
    """``memo`` is emptied each forward, or is a field of a holder built anew (or emptied)
    each forward."""
    if memo in resets:
        return True
    at = memo.find(".")
    while at > 0:
        if memo[: at + 1] in resets or memo[:at] in resets:
            return True
        at = memo.find(".", at + 1)
    return False


def _emptied(node: ast.AST, function: ast.AST, cleared: bool) -> str:
    """The memo ``_resets`` sees emptied at ``node``: ``self.<path>``, or a module global that
    is declared ``global`` (assigned) or is no local of the function (``.clear()``-ed)."""
    path = self_path(node)
    if path is not None or type(node) is not ast.Name:
        return path or ""
    declared = {n for s in nodes_under(function) if type(s) is ast.Global for n in s.names}
    local = node.id in params_of(function) or any(
        type(n) is ast.Name and type(n.ctx) is ast.Store and n.id == node.id
        for n in nodes_under(function))
    return MODULE_MEMO + node.id if node.id in declared or cleared and not local else ""


# an inner backend handed to a wrapper that is a swap point and does not hand its pool on: it
# reads the pool it was built with (its own token_to_kv_pool) when FROZEN_KV MTP swaps ours
HANDED_INNER = RECORD | POOL | STALE | INNER


def _handed_backends(function: ast.AST, facts: ClassFacts) -> List[str]:
    """Parameters of ``__init__`` that are attention backends the class delegates to: annotated
    so (``decode_backend: AttentionBackend``; ``MambaAttnBackendBase`` or ``str`` is not), or,
    unannotated, named so (``backend``) in a class that calls a backend method on another
    object (``self.decode_backend.forward_decode(...)``): the inners a wrapper is given."""
    args = function.args
    found = []
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.annotation is not None:
            if last_name(arg.annotation).endswith(BACKEND_SUFFIX):
                found.append(arg.arg)
        elif arg.arg.lower().endswith(INNER_HOLDER_SUFFIXES) and _delegates(facts):
            found.append(arg.arg)
    return found


def _delegates(facts: ClassFacts) -> bool:
    """A method of the class calls a backend method (``forward_decode``...) on an object
    other than ``self`` or ``super()``: it hands the work to an inner backend."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in BACKEND_METHODS and not is_self(node.func.value)
               and not _is_super_call(node.func.value)
               for method in facts.methods.values() for node in nodes_under(method))


def _stored_patterns(facts: ClassFacts) -> tuple:
    """The names ``setattr(self, <built name>, ...)`` may bind (``_flow.name_pattern``)."""
    found = set()
    for method in facts.methods.values():
        found |= _method_patterns(method)
    return tuple(sorted(found))


# function node -> the name patterns its setattr calls bind (asked once per class analysis)
_PATTERNS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()


def _method_patterns(method: ast.AST) -> frozenset:
    found = _PATTERNS.get(method)
    if found is None:
        found = _PATTERNS[method] = frozenset(
            pattern for node in nodes_under(method)
            if type(node) is ast.Call and last_name(node.func) in ("setattr", "__setattr__")
            and len(node.args) == 3 and is_self(node.args[0])
            for pattern in [name_pattern(node.args[1])] if pattern)
    return found


def holds_backend(family: List[ClassFacts], attr: str) -> bool:
    """``self.<attr>`` holds inner backends: built here (``XBackend(...)``) or handed in,
    named so (``self.backend = backend``, ``self.backends = [...]``, ``self.swa_backend``)."""
    return attr.lower().endswith(INNER_HOLDER_SUFFIXES) or any(
        f"inner:{attr}" in c.pool_binds for c in family)


def _gates_of(flow: MethodFlow, method: str) -> Iterator[Gate]:
    for event in flow.gates.values():
        yield Gate(event.name, event.node, event.target, event.negated, method, event.kind,
                   event.bits, event.use)
    for inner in flow.closures:
        yield from _gates_of(inner, method)


def _bound_names(family: List[ClassFacts]) -> frozenset:
    """Every name the classes' methods bind on ``self`` (in any spelling of a store) or define
    in their bodies: what ``__getattr__`` is never asked for."""
    names = set()
    for cls in family:
        names.update(cls.methods)
        names.update(t.id for s in cls.node.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                     for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                     if isinstance(t, ast.Name))
        for method in cls.methods.values():
            for node in ast.walk(method):
                if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
                        node.ctx, (ast.Store, ast.Del)) and self_path(node) is not None:
                    names.add(self_path(node).split(".")[0])
                elif isinstance(node, ast.Call) and last_name(node.func) in (
                        "setattr", "__setattr__") and len(node.args) > 1:
                    names.add(const_str(node.args[1]) or "")
    return frozenset(names)


def keyword_binding(function: ast.AST,
                    keywords: tuple) -> Tuple[Dict[str, Taint], Dict[str, Taint]]:
    """Where a call's keyword arguments go, as Python binds them: ``(params, spread)``, each
    keyword naming a parameter that takes keywords (positional-or-keyword, keyword-only) by that
    parameter, every other one by its own name into ``**kwargs`` (a positional-only
    parameter's name too); with no ``**kwargs`` those are dropped (the call would fail)."""
    args = function.args
    named = {a.arg for a in (*args.args, *args.kwonlyargs)}
    params: Dict[str, Taint] = {}
    spread: Dict[str, Taint] = {}
    for key, value in keywords:
        table = params if key in named else spread if args.kwarg is not None else None
        if table is not None:
            table[key] = table.get(key, CLEAN) | value
    return params, spread


def _bind_keywords(env: Dict[str, Taint], function: ast.AST, keywords: tuple) -> None:
    """``helper(pool=x)``: each keyword argument to its parameter (or to ``**kwargs``)."""
    params, spread = keyword_binding(function, keywords)
    if spread:
        params[function.args.kwarg.arg] = union(spread.values())
    for param, value in params.items():
        env[param] = env.get(param, CLEAN) | value


def factory_method(node: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The classmethod or staticmethod ``name`` of a class statement (a factory)."""
    for statement in node.body:
        if isinstance(statement, FUNCTIONS) and statement.name == name and _decorator_names(
                statement) & {"classmethod", "staticmethod"}:
            return statement
    return None


def _sink_of(cls: ClassFacts, attr: str) -> Taint:
    value = CLEAN
    for store in cls.stores:
        if store.attr == attr and store.sink:
            value |= store.bits
    return value


# tree -> how often each attribute is assigned in it (``FileFacts.times_stored``): the package's
# analysis and the codemod's same-file one count the same tree
_STORED_NAMES: "weakref.WeakKeyDictionary[ast.AST, Dict[tuple, int]]" = weakref.WeakKeyDictionary()


# function node -> its _scan: a class is faceted again for each question about it (a summary,
# an object built from it, the file's own analysis), and its methods never change
_SCANS: "weakref.WeakKeyDictionary[ast.AST, tuple]" = weakref.WeakKeyDictionary()


def _scan(function: ast.AST) -> Tuple[frozenset, bool, frozenset, dict]:
    """One walk of a method: the ``self.<m>()`` it calls, whether it asks the allocator, how
    it binds ``token_to_kv_pool`` (``ClassFacts.pool_binds``), and the functions it hands
    ``self`` to (``helper(self, ...)``: name -> the argument's position)."""
    found = _SCANS.get(function)
    if found is None:
        found = _SCANS[function] = _walk_scan(function)
    return found


def _returns_value(function: ast.AST) -> bool:
    """The function hands something back: a ``return`` of a value, or it is a generator."""
    return any(type(node) in (ast.Yield, ast.YieldFrom) or type(node) is ast.Return and not (
        node.value is None or _is_none(node.value)) for node in nodes_under(function))


def _resolved_in_place(facts: ClassFacts, stored: Dict[str, frozenset]) -> Dict[str, frozenset]:
    """Method -> the attributes it (or a wrapper running as it) keeps the allocator's pool in,
    where it also tests a pool's type against an SWA class: #27491's resolution written inline
    (``pool = self.token_to_kv_pool; if not isinstance(pool, SWAKVPool): ...get_kvcache()``)."""
    found = {}
    for name, method in facts.methods.items():
        attrs = stored.get(name, frozenset()) if _tests_swa_type(method) else frozenset()
        for wrapper in facts.wrappers.get(name, ()):
            if _asks(wrapper) and _tests_swa_type(wrapper):
                attrs |= _allocator_pool_stores(wrapper)
        if attrs:
            found[name] = attrs
    return found


def _tests_swa_type(function: ast.AST) -> bool:
    """The function tests a pool's type against an SWA class: with the allocator's pool
    stored (``_stores_allocator_pool``), #27491's resolution written inline. The allocator's
    pool kept whatever the active pool is (an EAGLE draft's own) is no resolution."""
    return any(type(n) is ast.Call and last_name(n.func) == "isinstance" and len(n.args) == 2
               and is_swa_word(last_name(n.args[1])) for n in nodes_under(function))


def _allocator_pool_stores(function: ast.AST) -> frozenset:
    """The ``self`` attributes the function stores what it read off the allocator into,
    directly or through a local bound to it (``kvcache = allocator.get_kvcache()``)."""
    nodes = nodes_under(function)
    bound = [(target.id, node.value) for node in nodes if type(node) is ast.Assign
             for target in node.targets if type(target) is ast.Name]
    asking: set = set()
    while True:  # (resolved = backing if ... else None, backing = allocator.get_kvcache())
        grown = {name for name, value in bound if name not in asking and (_asks(value) or any(
            type(n) is ast.Name and n.id in asking for n in ast.walk(value)))}
        if not grown:
            break
        asking |= grown
    return frozenset(path for node in nodes if type(node) is ast.Assign and (
        _asks(node.value) or any(type(n) is ast.Name and n.id in asking
                                 for n in ast.walk(node.value)))
        for path in map(self_path, node.targets) if path)


def _asks(node: ast.AST) -> bool:
    """``node`` reads the allocator (its name, an attribute of that name, its pool)."""
    return any(map(_names_allocator, ast.walk(node)))


def _names_allocator(node: ast.AST) -> bool:
    kind = type(node)
    return kind is ast.Attribute and node.attr in ALLOCATOR_NAMES or (
        kind is ast.Name and node.id in ALLOCATOR_NAMES)


ALLOCATOR_NAMES = (ALLOCATOR, ALLOCATOR_POOL)  # a read of the allocator or of its pool


def _walk_scan(function: ast.AST) -> Tuple[frozenset, bool, frozenset, dict]:
    calls, asks, binds, handed = set(), False, set(), {}
    for node in nodes_under(function):
        kind = type(node)  # (one test per node: most are none of these)
        if kind is ast.Attribute:
            if _names_allocator(node):
                asks = True
            elif node.attr == ACTIVE_POOL and isinstance(node.ctx, ast.Store):
                binds.add("own" if is_self(node.value) else "handed")
        elif kind is ast.Call:
            func = node.func
            if isinstance(func, ast.Attribute) and is_self(func.value):
                calls.add(func.attr)
            elif isinstance(func, ast.Name):
                handed.update((func.id, i) for i, a in enumerate(node.args) if is_self(a))
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                handed.update((f"{func.value.id}.{func.attr}", i)  # helpers.mark(self)
                              for i, a in enumerate(node.args) if is_self(a))
        elif kind is ast.Name:
            asks = asks or _names_allocator(node)
        elif kind is not ast.Assign:
            continue
        elif _builds_backend(node.value):
            binds.update(f"inner:{t.attr}" for t in node.targets  # self.x = XBackend(...)
                         if isinstance(t, ast.Attribute) and is_self(t.value))
        elif _names_runner(node.value):
            binds.update(f"runner:{t.attr}" for t in node.targets  # self.holder = model_runner
                         if isinstance(t, ast.Attribute) and is_self(t.value))
    return frozenset(calls), asks, frozenset(binds), handed


# What a store can never make None: a literal of any kind, a function, or one of the runner's
# shared pools (the allocator a resolver asks for the SWA pool is never that pool itself).
_NEVER_NONE = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
               ast.GeneratorExp, ast.JoinedStr, ast.Lambda)


def _never_none(value: Optional[ast.AST]) -> bool:
    """``value`` is never None, so a test of it against None decides nothing."""
    if type(value) is ast.Constant:
        return value.value is not None
    return isinstance(value, _NEVER_NONE) or (
        type(value) is ast.Attribute and value.attr in SHARED_POOLS)


def _names_runner(value: ast.AST) -> bool:
    """``model_runner`` / ``self.model_runner``: the runner itself, whose ``token_to_kv_pool``
    a FROZEN_KV swap rebinds (an attribute of ours holding it reaches the active pool); also
    as one operand of ``or`` or one side of a ternary (``owner or model_runner``)."""
    if isinstance(value, ast.BoolOp):
        return any(map(_names_runner, value.values))
    if isinstance(value, ast.IfExp):
        return _names_runner(value.body) or _names_runner(value.orelse)
    if isinstance(value, ast.Attribute) and is_self(value.value):
        return value.attr.endswith("runner")
    return isinstance(value, ast.Name) and value.id.endswith("runner")


def _builds_backend(value: ast.AST) -> bool:
    """``XBackend(...)`` (or ``given or XBackend(...)``): an inner backend, with a pool of its
    own, built here."""
    if isinstance(value, ast.BoolOp):
        return any(map(_builds_backend, value.values))
    return isinstance(value, ast.Call) and last_name(value.func).endswith(BACKEND_SUFFIX)


# __init__ -> the attributes it keeps a backend parameter in
_HANDED_BACKENDS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()


def _back_references(facts: ClassFacts, scope: ModuleScope, options: Options) -> frozenset:
    """The attributes a helper class (no backend itself) keeps the backend that builds it in:
    ``self.<attr> = <parameter>`` in ``__init__``, both named for a backend
    (``self.backend = backend``, ``self.attn_backend = owner_backend``), not one it builds."""
    init = facts.methods.get("__init__")
    if init is None:
        return frozenset()
    if init not in _HANDED_BACKENDS:
        params = set(params_of(init))
        _HANDED_BACKENDS[init] = frozenset(
            target.attr for statement in nodes_under(init) if type(statement) is ast.Assign
            and type(statement.value) is ast.Name and statement.value.id in params
            and statement.value.id.lower().endswith(INNER_HOLDER_SUFFIXES)
            for target in statement.targets if isinstance(target, ast.Attribute)
            and is_self(target.value) and target.attr.lower().endswith(INNER_HOLDER_SUFFIXES))
    handed = _HANDED_BACKENDS[init]
    if not handed or facts.name in scope.backend_names(options):
        return frozenset()
    return frozenset(a for a in handed if f"inner:{a}" not in facts.pool_binds)


def _called_back(facts: ClassFacts, scope: ModuleScope, options: Options) -> frozenset:
    """A helper holding the backend that built it runs a method when the backend calls it:
    every method but those building it (``__init__`` and what it calls) is per-forward."""
    if not _back_references(facts, scope, options):
        return frozenset()
    return frozenset(facts.methods) - _built_by_init(facts)


def _built_by_init(facts: ClassFacts) -> frozenset:
    """``__init__`` and the methods of the class it calls, directly or through each other."""
    found, todo = {"__init__", *facts.builders}, ["__init__", *facts.builders]
    while todo:
        for callee in facts.calls.get(todo.pop(), ()):
            if callee in facts.methods and callee not in found:
                found.add(callee)
                todo.append(callee)
    return frozenset(found)


def _pool_keyed_memo(attr: str, value: Optional[ast.AST], family: list) -> bool:
    """``self.plans = {model_runner.token_to_kv_pool: plan}``: a dict display whose keys are
    pools read off a holder and whose values read none, which every method of the family only
    looks up by key (``self.plans[pool]``, ``.get``, ``.setdefault``, ``pool in self.plans``)
    or stores into: a lookup with the live pool finds the live pool's entry or none, so the
    pool kept as a key is never read back (iterating its keys would be: ``.items()``)."""
    if type(value) is not ast.Dict or not value.keys or any(
            type(k) is not ast.Attribute or k.attr != ACTIVE_POOL for k in value.keys) or any(
            type(n) is ast.Attribute and n.attr == ACTIVE_POOL
            for v in value.values for n in nodes_under(v)):
        return False
    return all(_looked_up(node, child) for relative in family
               for node in class_nodes(relative.node) for child in ast.iter_child_nodes(node)
               if self_attr(child) == attr and type(child.ctx) is ast.Load)


def _looked_up(parent: ast.AST, read: ast.AST) -> bool:
    """``read`` (``self.<attr>``) is only looked up by key where ``parent`` holds it."""
    kind = type(parent)
    if kind is ast.Subscript:
        return parent.value is read
    if kind is ast.Attribute:
        return parent.attr in _KEYED_ACCESS
    if kind is ast.Compare:
        return read in parent.comparators and all(
            type(op) in (ast.In, ast.NotIn) for op in parent.ops)
    return False


_KEYED_ACCESS = frozenset({"get", "setdefault", "pop", "__contains__", "__getitem__"})


def _per_forward(methods: Dict[str, ast.AST], calls: Dict[str, set],
                 properties: Optional[Dict[str, bool]] = None) -> set:
    """Methods that run on every forward: named so, taking a batch, or called from one (a
    property read there, ``self.kv_pool``, is a call of its getter)."""
    found = {
        name for name, fn in methods.items()
        if name != "__init__" and (
            name == SWAP_SETTER  # the swap point's setter: every FROZEN_KV swap runs it
            or any(word in name for word in PER_FORWARD_WORDS)
            or any(w in p for p in params_of(fn) for w in PER_FORWARD_PARAMS)
        )
    }
    todo = list(found)
    while todo:  # everything a per-forward method calls runs per forward too
        caller = todo.pop()
        for callee in (*calls[caller], *_properties_read(methods[caller], properties)):
            if callee in methods and callee not in found and callee != "__init__":
                found.add(callee)
                todo.append(callee)
    return found


def _properties_read(function: ast.AST, properties: Dict[str, bool]) -> List[str]:
    """The properties of the class ``function`` reads off ``self`` (its getters run there)."""
    return [node.attr for node in nodes_under(function) if type(node) is ast.Attribute
            and node.attr in properties and is_self(node.value)] if properties else []


def _callers_first(methods: Dict[str, ast.AST], calls: Dict[str, set]) -> List[str]:
    """The order a pass runs the methods in: ``__init__``, then each method after the methods
    that call it (``self.<m>(...)``; in a cycle, as written). A helper's first turn then runs
    with what all its callers pass: one run with fewer arguments known would leave in the
    class's tables what only those arguments make (a memo keyed by a parameter that callers
    feed the batch's pool is refilled per pool, not kept; the tables only grow)."""
    rest = [name for name in methods if name != "__init__"]
    seen, done = set(), []
    for root in reversed(rest):  # (reversed twice: methods no call orders keep their order)
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(sorted(calls.get(root, ()), reverse=True)))]
        while stack:
            name, callees = stack[-1]
            callee = next(callees, None)
            if callee is None:
                stack.pop()
                done.append(name)
            elif callee in methods and callee != "__init__" and callee not in seen:
                seen.add(callee)
                stack.append((callee, iter(sorted(calls.get(callee, ()), reverse=True))))
    return ["__init__"] * ("__init__" in methods) + done[::-1]


def _class_facts(node: ast.ClassDef, scope: ModuleScope, options: Options) -> ClassFacts:
    pool_attr = options.pool_attr
    facts = ClassFacts(node.name, node, tuple(map(last_name, node.bases)))
    if getattr(node, BUILDER_MARK, False):
        built = node.body  # (a class made for builders of a class of another module)
    else:
        built = scope.builders(options)[0].get(node.name, ())
    cached = set()
    setters = []
    for statement in node.body:
        if isinstance(statement, FUNCTIONS) and statement.name in facts.properties and any(
                _sets_property(d, statement.name) for d in statement.decorator_list):
            setters.append(statement.name)  # its setter: run by `self.<name> = value`
            facts.methods[setter_of(statement.name)] = statement
        elif isinstance(statement, FUNCTIONS) and statement.name not in facts.methods and (
                not _is_overload(statement, scope.imports)):
            facts.methods[statement.name] = statement
            marks = _decorator_names(statement, scope.imports)
            if "property" in marks:
                facts.properties[statement.name] = False
            elif "cached_property" in marks:
                facts.properties[statement.name] = True
            elif marks & set(CACHED_DECORATORS):
                cached.add(statement.name)
            else:  # @memo, a class of the module or the package defining __get__
                kept = next(filter(lambda k: k is not None, map(decorator_descriptor, map(
                    scope.class_of, statement.decorator_list))), None)
                if kept is not None:
                    facts.properties[statement.name] = kept
            facts.wrappers[statement.name] = wrapper_bodies(statement, functools.partial(
                scope.placed_def, kind=ast.FunctionDef))
    facts.methods.update(dispatched(  # a singledispatchmethod: a type test calling a variant
        node.body, lambda f: _decorator_names(f, scope.imports), method=True))
    for attr, method, memoises in descriptor_methods(node, scope.descriptor_class):
        if attr not in facts.methods:  # its __get__ runs on each read of self.<attr>
            facts.methods[attr] = method
            if not memoises:  # (one that keeps its answer stores it: a sink of its own)
                facts.properties[attr] = False
    for name, method in metaclass_methods(node, functools.partial(
            scope.placed_def, kind=ast.ClassDef)):  # Meta.__call__: once-only
        facts.methods.setdefault(name, method)
    for method in [*scope.patched.get(node.name, ()), *decorated_methods(
            node, functools.partial(scope.placed_def, kind=ast.FunctionDef),
            scope.subclass_hook)]:
        if method.name in facts.methods:
            facts.wrappers.setdefault(method.name, []).append(method)
        else:
            facts.methods[method.name] = method
    for method in built:
        if method.name not in facts.methods:
            facts.methods[method.name] = method
    facts.builders = frozenset(m.name for m in built if facts.methods.get(m.name) is m)
    facts.cached_methods = frozenset(cached)
    scans = {name: _scan(fn) for name, fn in facts.methods.items()}
    facts.calls = {name: set(calls) for name, (calls, _, _, _) in scans.items()}  # (own: grown)
    asking = [name for name, (_, asks, _, _) in scans.items() if asks]
    stored = {name: _allocator_pool_stores(facts.methods[name]) for name in asking}
    storing = {name for name in asking if pool_attr in stored[name]}
    facts.in_place = _resolved_in_place(facts, stored)
    facts.resolvers = frozenset(  # methods that ask the allocator for what they hand back:
        # the fix itself (a construction hook that only stores is no resolver of what it keeps)
        name for name in asking if name != "__init__" and name not in facts.builders
        and (name in storing or _returns_value(facts.methods[name])))
    facts.pool_binds = frozenset(bind for _, _, binds, _ in scans.values() for bind in binds)
    for caller, (_, _, _, handed) in scans.items():
        for name, method in handed_helpers(handed, scope.functions, facts.methods):
            facts.methods[name] = method  # helper(self): its body reads this backend
            facts.calls[name] = set()
            facts.calls[caller].add(name)
        if scope.package is not None:  # helpers.mark(self): one of another module, at the call
            for name, placed, method in foreign_helpers(
                    {n: i for n, i in handed.items() if n not in scope.functions},
                    facts.methods[caller], facts.methods, scope.handed_def):
                if caller in facts.builders and hands_backend(placed, handed[name]):
                    continue  # (a builder's helper handed a backend: found at its own lines)
                facts.methods[name] = method
                facts.placed[name] = placed
                facts.calls[name] = set()
                facts.calls[caller].add(name)
    if setters:  # a method assigning self.<name> calls its setter
        for caller, function in list(facts.methods.items()):
            stored = {n.attr for n in nodes_under(function) if type(n) is ast.Attribute
                      and type(n.ctx) is ast.Store and is_self(n.value)}
            facts.calls.setdefault(caller, set()).update(
                setter_of(name) for name in setters if name in stored)
    kept = {name for name, kind in facts.properties.items() if kind} | facts.cached_methods
    if kept:  # a cache every forward empties keeps its answer one forward: a live property
        emptied = _emptied_caches(facts, kept)
        facts.properties.update((name, False) for name in emptied if name in facts.properties)
        facts.cached_methods = facts.cached_methods - emptied
    return facts


def _emptied_caches(facts: ClassFacts, kept: set) -> frozenset:
    """Which of the class's caches ``kept`` (cached_property, functools-cached methods) a
    per-forward method empties: ``self.__dict__.pop("x", None)``, ``vars(self).pop("x")``,
    ``del self.x``, ``delattr(self, "x")``, ``self.x.cache_clear()`` (``type(self).x``,
    ``Cls.x`` too), or every one at once (``self.__dict__.clear()``)."""
    found = set()
    for name in _per_forward(facts.methods, facts.calls, facts.properties):
        for node in nodes_under(facts.methods[name]):
            kind = type(node)
            if kind is ast.Delete:
                found.update(filter(None, map(_instance_key, node.targets)))
            elif kind is ast.Call and type(node.func) is ast.Attribute:
                method, held = node.func.attr, node.func.value
                if method in ("pop", "clear") and is_self(namespace_of(held)):
                    found.update(kept if method == "clear" else [const_str(node.args[0])]
                                 if node.args else [])
                elif method == "cache_clear" and type(held) is ast.Attribute and (
                        names_own_class(held.value) or is_self(held.value) or (
                            type(held.value) is ast.Name and held.value.id == facts.name)):
                    found.add(held.attr)
            elif kind is ast.Call and type(node.func) is ast.Name and (
                    node.func.id == "delattr" and len(node.args) == 2 and is_self(node.args[0])):
                found.add(const_str(node.args[1]))
    return frozenset(found & kept)


def _instance_key(target: ast.AST) -> Optional[str]:
    """The cache ``del`` empties: ``del self.x``, ``del self.__dict__["x"]``."""
    if type(target) is ast.Attribute and is_self(target.value):
        return target.attr
    if type(target) is ast.Subscript and is_self(namespace_of(target.value)):
        return const_str(target.slice)
    return None


def setter_of(name: str) -> str:
    """The key of property ``name``'s setter among a class's methods (no call can spell it)."""
    return name + ".setter"


def _sets_property(decorator: ast.AST, name: str) -> bool:
    """``@<name>.setter``."""
    return isinstance(decorator, ast.Attribute) and decorator.attr == "setter" and isinstance(
        decorator.value, ast.Name) and decorator.value.id == name


# -- the file ---------------------------------------------------------------------------------
class FileFacts:
    """All backend classes of one file, with the queries the rules share."""

    def __init__(self, tree: ast.AST, options: Options) -> None:
        self.tree, self.options = tree, options
        self.classes: List[ClassFacts] = []
        self.by_name: Dict[str, ClassFacts] = {}
        self._stored_names: Optional[Dict[tuple, int]] = None
        self._relatives: Dict[str, List[ClassFacts]] = {}
        self._relative_set: Dict[str, KeysView] = {}  # the same, as a set (dict keys) to test in
        self._roots: Dict[tuple, Dict[int, int]] = {}  # (class, method) -> node id -> decision
        self._swaps: Dict[str, List[Store]] = {}  # class -> its swap points (decides_nothing)
        self._tests: Dict[ast.AST, MethodTests] = {}  # method -> ``_tests_in``
        self._decisions: Dict[str, Dict[tuple, Store]] = {}  # class -> ``stored_decision``
        self._flags: Dict[tuple, Optional[Flag]] = {}
        self._flags_in: Dict[tuple, tuple] = {}  # (class, node) -> ``_flags_read``
        self._truths: Dict[str, Optional[tuple]] = {}  # class named -> ``_truth_class``
        self._by_attr: Optional[Dict[str, List[tuple]]] = None
        self._patterns: List[tuple] = []  # (name pattern, its stores) of _by_attr
        self.package, self.path = None, ""  # set in package mode: heirs in other modules
        self.scope: Optional["ModuleScope"] = None  # what module-level names mean (resolvers)

    def built_at(self, scope: Optional[ast.ClassDef], node: Optional[ast.AST]) -> Optional[str]:
        """The name a builder of class ``scope`` (a function outside it, ``ModuleScope.
        builders``) holds the backend in, when ``node`` (a finding of ``scope``) lies in one:
        no fix of that class reaches it. None elsewhere."""
        if scope is None:
            return None
        line = getattr(node, "lineno", None)
        for cls in self.classes:
            if cls.node is scope and cls.builders and line is not None:
                for name in cls.builders:
                    method = cls.methods[name]
                    if method.lineno <= line <= (method.end_lineno or line):
                        return getattr(method, BUILDER_MARK)
        return "backend" if getattr(scope, BUILDER_MARK, False) else None

    def heirs_bind(self, cls: ClassFacts, *names: str) -> bool:
        """A subclass of ``cls`` (or of a same-file relative) in another module of the package
        may bind one of ``names``: what a fix of it proves in this file does not hold there."""
        return self.package is not None and self.package.heirs_bind(
            [c.name for c in self.relatives(cls)], names, self.path)

    def relatives(self, cls: ClassFacts) -> List[ClassFacts]:
        """The class, its same-file bases, its same-file subclasses and what those inherit
        (a mixin's code reads what its sibling bases store)."""
        if cls.name not in self._relatives:
            found = dict.fromkeys(cls.family)  # (ordered, each once)
            for other in self.classes:
                if cls in other.family:
                    found.update(dict.fromkeys(other.family))
            self._relatives[cls.name] = list(found)
            self._relative_set[cls.name] = found.keys()
        return self._relatives[cls.name]

    def _stored(self, name: str) -> List[tuple]:
        """``(class, store)`` for every store of ``name`` in the file (indexed once)."""
        if self._by_attr is None:
            self._by_attr = {}
            for cls in self.classes:
                for store in cls.stores:
                    self._by_attr.setdefault(store.attr, []).append((cls, store))
            # names made at run time (setattr(self, f"_{mode}_map", ...)): each name they fit
            self._patterns = [(k, v) for k, v in self._by_attr.items() if "*" in k]
        found = self._by_attr.get(name, [])
        if "*" in name:  # a read of a name built at run time: every store it may name
            return [pair for attr, pairs in self._by_attr.items() if attr != name and (
                fnmatchcase(attr, name)) for pair in pairs] + found
        if self._patterns:
            found = found + [pair for pattern, pairs in self._patterns
                             if fnmatchcase(name, pattern) for pair in pairs]
        return found

    def provides_pool(self, cls: ClassFacts) -> bool:
        """The class or a same-file base assigns ``self.<pool_attr>``."""
        return any(c in cls.family for c, _ in self._stored(self.options.pool_attr))

    def pool_set_once(self, cls: ClassFacts) -> bool:
        """The class's family (same-file bases and heirs) assigns ``self.<pool_attr>`` in one
        statement only: a second one (``if not enable: self._swa_kv_pool = None``, a
        ``disable()`` method) can leave the pool None where a flag said SWA."""
        family = self.relatives(cls)
        return len({id(store.statement or store.node)
                    for c, store in self._stored(self.options.pool_attr) if c in family}) == 1

    def pool_attr_clash(self, cls: ClassFacts, attr: str, flags: Iterable[str] = ()) -> str:
        """Why ``self.<attr>`` cannot be the resolved SWA pool the fixes test against None
        (``kvp-pool-attr`` names it; the class holds it for something else: the test would be
        always true, recursive or shadowed), or "" when nothing says so."""
        if attr in (ACTIVE_POOL, *SHARED_POOLS) or attr.endswith("runner"):
            return (f"self.{attr} is the runner or its pool, never None: kvp-pool-attr must "
                    "name the resolved SWA pool")
        if attr.startswith("__") and attr.endswith("__"):  # __class__, __dict__: set, they raise
            return f"self.{attr} (kvp-pool-attr) is a special name Python gives its own meaning"
        if attr == DISPATCH_METHOD or attr in BACKEND_METHODS:  # inherited: the base defines it
            return f"self.{attr} (kvp-pool-attr) is a method every attention backend has"
        family = self.relatives(cls)
        if attr in flags or any(attr in c.methods or attr in c.properties for c in family):
            return f"self.{attr} (kvp-pool-attr) is a flag or method of the class"
        if any(s.value is not None and (s.bits & TYPE and not s.bits & RECORD or _names_runner(
                s.value) or type(s.value) is ast.Attribute and s.value.attr == ACTIVE_POOL)
               for s in self.stores_of(cls, attr)):
            return f"self.{attr} (kvp-pool-attr) holds a flag, the runner or its pool here"
        values = [s.value for s in self.stores_of(cls, attr)]
        if any(_never_none(value) for value in values):
            return f"self.{attr} (kvp-pool-attr) holds a value that is never None here"
        if values and all(type(v) is ast.Constant and v.value is None for v in values):
            return f"self.{attr} (kvp-pool-attr) is only ever None here, never a pool"
        return ""

    def joins_conditions(self, cls: ClassFacts, name: str) -> bool:
        """Whether flag ``name`` is stored from its pool test joined with another condition
        (``joins_other_conditions``): its remedy tests the pool in place of the type test only."""
        return any(s.statement is not None and joins_other_conditions(
            s.value, self.options.pool_attr) for s in self.stores_of(cls, name))

    def stores_of(self, cls: ClassFacts, name: str) -> List[Store]:
        self.relatives(cls)
        relatives = self._relative_set[cls.name]
        return [s for c, s in self._stored(name) if c in relatives]

    def times_stored(self, name: str, foreign_only: bool = False) -> int:
        """How often ``<anything>.<name>`` is assigned (or ``setattr``-ed) in the whole file;
        with ``foreign_only``, only on objects other than ``self`` (writes from outside)."""
        if self._stored_names is None:
            self._stored_names = _STORED_NAMES.get(self.tree)
        if self._stored_names is None:
            counts: Dict[tuple, int] = {}
            for node in nodes_under(self.tree):
                key = None
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    key = (node.attr, is_self(node.value))
                elif isinstance(node, ast.Call) and last_name(node.func) == "setattr":
                    attr = node.args[1] if len(node.args) > 1 else None
                    if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                        key = (attr.value, is_self(node.args[0]))
                if key is not None:
                    counts[key] = counts.get(key, 0) + 1
            self._stored_names = _STORED_NAMES[self.tree] = counts
        foreign = self._stored_names.get((name, False), 0)
        return foreign if foreign_only else foreign + self._stored_names.get((name, True), 0)

    def flag(self, cls: ClassFacts, name: str) -> Optional[Flag]:
        """``name`` as a stale boolean SWA flag of ``cls``; None when it is not one (or live)."""
        key = (cls.name, name)
        if key not in self._flags:
            self._flags[key] = None  # (a flag recomputed from itself asks for itself)
            self._flags[key] = self._flag(cls, name) or self._heir_flag(cls, name)
        return self._flags[key]

    def _heir_flag(self, cls: ClassFacts, name: str) -> Optional[Flag]:
        """A class others of the file inherit (a shared mixin, a base) runs as each of them:
        its read of ``name`` is a stale flag when it is one in any class built on it, though a
        sibling composition makes the name a live property (what the union of relatives says)."""
        if name == self.options.pool_attr or any(name in c.properties for c in cls.family):
            return None
        return next((found for other in self.classes if other is not cls and cls in other.family
                     for found in [self.flag(other, name)] if found is not None), None)

    def _flag(self, cls: ClassFacts, name: str) -> Optional[Flag]:
        if name == self.options.pool_attr:
            return None  # a gate on the resolved pool object is the fix itself
        holder, _, leaf = name.partition(".")
        if leaf and is_flag_name(leaf) and holds_backend(cls.family, holder):
            built = self._inner_classes(cls, holder)
            if built and not _by_lineage(cls, self.options):
                return None  # a multi-step draft wrapper's own steps: FROZEN_KV swaps neither
            known = [self.by_name[b] for b in built if b in self.by_name and b != cls.name]
            if known and not any(self.flag(inner, leaf) for inner in known):
                return None  # built from classes of the file whose flag is live
            return Flag(name, inner=True)  # an inner backend's SWA flag: decided on its pool
        if leaf and not self.stores_of(cls, name) and self._chosen(cls, holder):
            return Flag(name)  # self.kind.value: the verdict a pool test picked, read off it
        family = self.relatives(cls)
        owners = [c for c in cls.family if name in c.properties] or [
            c for c in family if name in c.properties and not self._bound_by(cls, name)]
        kinds = [c.properties[name] for c in owners]
        if kinds:  # a property: live unless it returns a decision made from stale state
            bits = owners[0].returns.get(name, CLEAN)
            stale = (bits & DECISION or untrusted(bits)) and (kinds[0] or bits & STALE or (
                bits & MIRROR and self.kept_pool_attr(cls)))  # a test of an unresolved pool
            return Flag(name) if stale else None
        foreign = _foreign_flag(cls, name, self._bound_by(cls, name))
        if foreign is not None:
            return foreign if foreign.name else None
        stores = self.stores_of(cls, name)
        sinks = [s for s in stores if s.sink]
        if not stores and ("." in name or any(name in c.fields for c in family)):
            # a field of a stored record (self.layout.enabled), or what __getattr__ answers
            held = self._held_fields(cls, name)
            return Flag(name, pool_type=not any(
                b & (TYPE | RUNNER | CHOICE) for b in held)) if any(map(untrusted, held)) else None
        forward = DECISIVE & ~GATED  # what is made per forward is made again: its own gate
        decisive = [s.bits for s in sinks if untrusted(s.bits)] + [
            s.bits for s in stores if not s.sink and s.bits & forward and s.bits & STALE
            and not s.bits & (RECORD | GATED) and not self._recomputed_at_gate(cls, s)] + [
            s.bits | TYPE for s in sinks if self.stale_mirror(cls, s)]
        if decisive:  # (a stored mirror alone is KVP004's (opt-in) business)
            if not any(bits & (TYPE | RUNNER | CHOICE | GATED) for bits in decisive):
                return Flag(name, pool_type=True)  # only non-SWA type tests decide it
            derived = all(bits & GATED for bits in decisive)
            return self._exactness(Flag(name, derived=derived), sinks)
        if name != DEFAULT_FLAG and name not in self.options.swa_flags:
            return None
        forward = [s for s in stores if not s.sink]
        if forward and all(_constant(s.value) for s in sinks):
            return None  # recomputed on every forward from the live pool
        if sinks and all(self._mirrors_resolved(cls, s) for s in sinks) or not stores and any(
                name in summary.stores for c in cls.family for summary in c.foreign):
            return None  # a mirror of the allocator's pool (KVP004's), here or in a base
        if not stores and any(other is not cls and cls in other.family for other in self.classes):
            return None  # a mixin's (a base's) read: what the classes built on it say (_heir_flag)
        return self._exactness(Flag(name), sinks)

    def _inner_classes(self, cls: ClassFacts, holder: str) -> set:
        """The attention backend classes (named ``...Backend``, or backends of the module by
        lineage: a ``...BackendFixed``) whose instances the class builds into ``self.<holder>``
        (a wrapper built by a class that only follows the protocol is SGLang's multi-step
        draft wrapper: EAGLE's per-step backends, never handed a FROZEN_KV swap)."""
        found = set()
        known = self.scope.backend_names(self.options) if self.scope is not None else ()
        for method in (m for c in cls.family for m in c.methods.values()):
            for node in nodes_under(method):
                value = _filled_value(node, holder)
                found.update(last_name(n.func) for n in nodes_under(value or ast.Pass())
                             if isinstance(n, ast.Call) and (last_name(n.func).endswith(
                                 BACKEND_SUFFIX) or last_name(n.func) in known))
        return found

    def guarding_gate(self, cls: ClassFacts, store: Store) -> Optional[Gate]:
        """The reported flag gate deciding the ``if``/``while``/``match`` a store of neither
        pool data nor a choice is made in (a zeros buffer, a window size, an env value under
        ``if self.is_swa:``): fixing that gate fixes the store, so the store is its finding."""
        bits = store.bits
        if not bits & GATED or bits & (STATE | CHOICE | KIND | SIZE | RUNNER | TYPE | INNER):
            return None
        method = next((c.methods[store.method] for c in self.relatives(cls)
                       if store.method in c.methods), None)
        gates = [g for c in self.relatives(cls) for g in c.gates if g.method == store.method
                 and g.kind in ("attr", "alias") and self.flag(cls, g.name) is not None]
        if method is None or not gates:
            return None
        line = store.node.lineno
        for node in nodes_under(method):
            test, branches = _decision(node)
            if test is None or not any(b.lineno <= line <= b.end_lineno for b in branches):
                continue
            inside = set(map(id, nodes_under(test)))
            found = next((g for g in gates if id(g.node) in inside), None)
            if found is not None:
                return found
        return None

    def decides_nothing(self, cls: ClassFacts, gate: Gate) -> bool:
        """A flag gate of an ``if`` whose every branch only binds the swap point again
        (``if self.use_swa: self.token_to_kv_pool = model_runner.token_to_kv_pool``, bound
        anyway elsewhere) or passes: either way the backend holds the same, nothing to fix."""
        if gate.kind not in ("attr", "alias"):
            return False
        family = self.relatives(cls)
        swaps = self._swaps.get(cls.name)
        if swaps is None:  # (indexed once per class: the rules ask for every gate)
            swaps = self._swaps[cls.name] = [
                s for c in family for s in c.stores if is_swap_point(s) and s.statement
                and (attribute_alias(s.value) or (None, ""))[1] == ACTIVE_POOL]
        method = next((c.methods[gate.method] for c in family if gate.method in c.methods), None)
        if method is None or not swaps:
            return False
        node = self._tests_in(method).if_of.get(gate.node)
        if node is None:
            return False
        # read off the branches, never a walk of the if (once per gate: quadratic in a test of
        # thousands of operands): when each branch statement is a pass or a swap point, which
        # holds no statement, those are all the statements inside it
        branches = {id(s) for s in [*node.body, *node.orelse] if type(s) is not ast.Pass}
        rebinds = {id(s.statement) for s in swaps if id(s.statement) in branches}
        return rebinds == branches and len(rebinds) < len(swaps)

    def _tests_in(self, method: ast.AST) -> "MethodTests":
        """What the decisions of ``method`` test, indexed once per method (the rules ask per
        gate and per store)."""
        found = self._tests.get(method)
        if found is None:
            found = self._tests[method] = MethodTests.of(method)
        return found

    def stored_decision(self, cls: ClassFacts, gate: Gate) -> Optional[Store]:
        """The store kept past the call whose value holds ``gate`` (``self.verify = self.swa and
        not self.mla``, ``self.mode = "swa" if self.swa else "full"``): a boolean expression or
        a choice that is stored is data, and what it keeps is that store's finding (KVP002's
        second-order flag, KVP001's choice), not a second one on the read inside it. Made again
        per forward, the store is no finding: the gate is (``_recomputed_at_gate``)."""
        found = self._decisions.get(cls.name)
        if found is None:  # (method, node) -> the first such store holding it, indexed once
            found = self._decisions[cls.name] = {}
            walked = set()  # (method, value): the elements of one unpacked display share it
            for c in self.relatives(cls):
                for store in c.stores:
                    if store.value is None or not store.sink or store.resolver \
                            or not keeps_decision(store.bits) or \
                            (store.method, store.value) in walked:
                        continue
                    walked.add((store.method, store.value))
                    for node in nodes_under(store.value):
                        found.setdefault((store.method, node), store)
        return found.get((gate.method, gate.node))

    def decision_of(self, cls: ClassFacts, gate: Gate) -> int:
        """An id for the decision ``gate`` is part of: the whole ``and``/``or``/``not`` around
        it (``if self.unified and self.swa:`` is one decision on two flags), else the read."""
        roots = self._roots.get((cls.name, gate.method))
        if roots is None:
            roots = self._roots[(cls.name, gate.method)] = {}
            for c in self.relatives(cls):
                method = c.methods.get(gate.method)
                for node in nodes_under(method) if method is not None else ():
                    if _is_logic(node) and id(node) not in roots:
                        for inner in nodes_under(node):
                            roots[id(inner)] = id(node)
        return roots.get(id(gate.node), id(gate.node))

    def deciding_flag(self, cls: ClassFacts, store: Store) -> Optional[str]:
        """The first stale flag a second-order flag is made from (``self.verify = self.unified
        and ...``; ``self.unified = True`` in a branch of ``if self.swa:``): read in its value,
        else tested by the innermost decision whose branch makes it. None for a type test."""
        def flag_in(node: ast.AST) -> Optional[str]:
            return next((n for n in self._flags_read(cls, node) if n != store.attr), None)

        found = flag_in(store.value) if store.value is not None else None
        for test in self.tests_around(cls, store) if found is None else ():
            found = flag_in(test) or found  # (outer decisions come first)
        return found

    def _flags_read(self, cls: ClassFacts, node: ast.AST) -> tuple:
        """The stale flags of ``cls`` that ``node`` reads, in walk order: kept per node, as the
        elements of one unpacked display share it (``a, *b, c = <display>``)."""
        found = self._flags_in.get((cls.name, node))
        if found is None:
            names = dict.fromkeys(filter(None, map(self_attr, nodes_under(node))))
            found = tuple(n for n in names if self.flag(cls, n) is not None)
            self._flags_in[(cls.name, node)] = found
        return found

    def tests_around(self, cls: ClassFacts, store: Store) -> List[ast.expr]:
        """The tests of the ``if``/``while``/``match`` statements whose branches make
        ``store``, outer first."""
        method = next((c.methods[store.method] for c in self.relatives(cls)
                       if store.method in c.methods), None)
        if method is None:
            return []
        return list(self._tests_in(method).at_line.get(store.node.lineno, ()))

    def _recomputed_at_gate(self, cls: ClassFacts, store: Store) -> bool:
        """A per-forward store whose stale part is a flag gated in the statement itself
        (``self.use_mha = self.supports_mha_one_shot and ...``): the value is made again on
        every forward, and the stale flag it reads is that gate's finding, not a second one."""
        statement = store.statement
        if statement is None:
            return False
        span = range(statement.lineno, statement.end_lineno + 1)
        return any(
            gate.method == store.method and gate.node.lineno in span and gate.name != store.attr
            and (self.call_flag(cls, gate) if gate.kind in ("call", "global") else self.flag(
                cls, gate.name)) for c in self.relatives(cls) for gate in c.gates)

    def _mirrors_resolved(self, cls: ClassFacts, store: Store) -> bool:
        """``store`` tests only pools this class resolved through the allocator
        (``self.p = self._resolve_swa_kv_pool(runner)``, then ``self.flag = self.p is not None
        [and self.p.x]``): the swap installs that very pool, so the mirror is right for every
        role. A resolver the file cannot see (a base in another module) proves nothing."""
        from lint_rules.rules._fixes import mirror_may_drift  # (the fixes build on the facts)

        if store.value is None or store.bits & ~MIRROR:
            return False
        read = {self_path(n).partition(".")[0] for n in nodes_under(store.value)
                if isinstance(n, ast.Attribute) and self_path(n) is not None}
        pools = {attr for attr in read if self._resolved(cls, attr)}
        return bool(pools) and all(attr in pools or self._holds_nothing(cls, attr)
                                   for attr in read) and not (
            mirror_may_drift(self, cls, store.attr, tuple(pools), unproven=False))

    def _holds_nothing(self, cls: ClassFacts, attr: str) -> bool:
        """Every store of ``self.<attr>`` holds no pool state nor decision (geometry, as
        ``self.num_swa_layers`` ANDed into a mirror): it cannot make the mirror stale."""
        stores = self.stores_of(cls, attr)
        return bool(stores) and not any(s.bits for s in stores)

    def _resolved(self, cls: ClassFacts, attr: str) -> bool:
        """Every store of ``self.<attr>`` is a call of a resolver the file defines, and no
        other object rebinds it (a swap of the pool alone would leave the mirror behind)."""
        stores = self.stores_of(cls, attr)
        if not stores and attr == self.options.pool_attr:  # a base of another module keeps it:
            return self._resolved_by_base(cls, attr)  # its package summary says how
        names = {m for c in self.relatives(cls) for m in c.resolvers}.union(
            *(summary.resolvers for c in cls.family for summary in c.foreign))
        return bool(stores) and not self.times_stored(attr, foreign_only=True) and all(
            isinstance(s.value, ast.Call) and (
                last_name(s.value.func) in names or self._class_resolver(s.value.func)
                or self.scope is not None and (
                    self.scope.calls_resolver(s.value.func) or attr == self.options.pool_attr
                    and not s.bits and self.scope.unseen_callee(s.value.func)))
            or attr == self.options.pool_attr and (_copies_resolved(s.value, attr) or any(
                attr in c.in_place.get(s.method, ()) for c in self.relatives(cls)))
            for s in stores)

    def _class_resolver(self, func: ast.AST) -> bool:
        """``Backend._resolve_swa_kv_pool``: a resolver of another class of the file, called
        through its class."""
        return type(func) is ast.Attribute and type(func.value) is ast.Name and (
            func.value.id in self.by_name) and func.attr in self.by_name[func.value.id].resolvers

    def _resolved_by_base(self, cls: ClassFacts, attr: str) -> bool:
        """The resolved pool attribute is stored only by bases of other modules (the package
        index's summaries), each time holding no pool state: what a resolver asking the
        allocator stores (``kept_pool_attr`` is the other answer). Run per file, no summary
        says so and the mirror stays unproven."""
        held = [Taint(summary.stores[attr]) for c in cls.family for summary in c.foreign
                if attr in summary.stores]
        return bool(held) and not any(bits & STATE for bits in held) and not \
            self.times_stored(attr, foreign_only=True)

    def _bound_by(self, cls: ClassFacts, name: str) -> bool:
        """``cls`` or a base of it stores ``name`` (here or in another module): a subclass
        overriding it with a property fixes that subclass, not the code of ``cls``."""
        return any(c in cls.family for c, s in self._stored(name) if s.sink) or any(
            name in summary.stores or name in summary.flags
            for c in cls.family for summary in c.foreign)

    def reads_kept_state(self, cls: ClassFacts, gate: Gate) -> bool:
        """Whether ``gate``, a decision in per-forward code, reads pool state kept past the swap
        (KVP001's: a sub-pool, a mapping, a bound method, a buffer or dict picked by a pool
        test, a helper holding them), whatever the test (``is None``, ``in``, ``callable``,
        ``isinstance``, truthiness, ``or``). Not state re-read per forward, nor what a resolver
        made, nor the resolved pool attribute (KVP004's business)."""
        if gate.use == "other" or gate.method in _construction(cls):
            return False  # (once, before any swap: what it keeps is flagged where kept)
        if gate.use == "present":  # hasattr(self, "x"): whether a pool decision set it
            return self.set_only_under_decision(cls, gate.name)
        truth = gate.kind == "attr" or gate.use == "truth" and gate.kind in ("alias", "read")
        if truth and any(  # if self.handles: its __bool__ run on what it holds (through a
                # local aliasing it, bool(self.handles) too)
                self.flag(cls, field) is not None or picked and self._kept_state(cls, field) or
                self.reads_kept_state(cls, dataclasses.replace(
                    gate, name=field, kind="read", use=use))
                for field, use, picked in self.truth_reads(cls, gate.name)):
            return True
        if gate.kind not in ("call", "local") and any(
                s.method == gate.method and (gate.kind != "global" or s.scope == "module")
                for s in self.stores_of(cls, gate.name)):
            return False  # a lazy fill's own test (the fill is KVP001's)
        if gate.kind in ("call", "global", "local"):
            bits = gate.bits  # (a decision on an element of a kept table: what it holds)
            if gate.use == "element" and bits & RECORD:
                bits = element(bits) | bits & STALE
            return bool(bits & STALE and not bits & RECORD and (
                bits & SIZE or gate.use != "compared" and bits & STATE))
        if self._kept_size(cls, gate.name):
            return True  # 0 < self.swa_capacity <= n: the capacity of the pool of that moment
        if gate.use == "compared":
            return False
        if gate.use in WHOLE_USES and gate.name != self.options.pool_attr and (
                self._made_only_under_flag(cls, gate.name) or self._picked_by_pool_test(
                    cls, gate.name)):
            return True
        return self._kept_state(cls, gate.name, gate.use in WHOLE_USES)

    def truth_reads(self, cls: ClassFacts, name: str) -> List[Tuple[str, str, bool]]:
        """``(field, use, picked)`` for what the truth of the object ``self.<name>`` holds tests
        of its own state: its class's ``__bool__`` (else ``__len__``, whose ``len(self.x)`` is
        the truth of ``x``) run on it reads ``self.<name>.<field>``, tested as it tests it;
        ``picked``: its class makes that field empty or not by a decision (``[m] if <test>
        else []``), so whether it is empty is that decision."""
        found = []
        for store in self.stores_of(cls, name):
            value = store.value
            klass = self._truth_class(value.func) if type(value) is ast.Call else None
            if klass is None:
                continue
            method, picked = klass
            holder = method.args.args[0].arg
            for node in nodes_under(method):
                if type(node) is not ast.Return or node.value is None:
                    continue
                returned = node.value
                if type(returned) is ast.Call and last_name(returned.func) == "len" and len(
                        returned.args) == 1:
                    returned = returned.args[0]  # (len of it is zero exactly when it is empty)
                found.extend((f"{name}.{part.attr}", use, part.attr in picked)
                             for part, use in tested_operands(returned)
                             if type(part) is ast.Attribute and type(part.value) is ast.Name
                             and part.value.id == holder)
        return found

    def _truth_class(self, func: ast.AST) -> Optional[Tuple[ast.AST, frozenset]]:
        """The ``__bool__`` (else ``__len__``) of the class ``func`` names, of this module or
        of another module of the package (its own body: not a base's), and the fields the
        class picks by a decision (``_picked_fields``)."""
        scope = self.scope
        if scope is None or type(func) not in (ast.Name, ast.Attribute):
            return None
        local = type(func) is ast.Name and func.id in scope.classes
        key = func.id if local else scope.qualified(func)
        if key is None or not local and self.package is None:
            return None
        if key not in self._truths:
            node = scope.classes[key] if local else self.package.class_def(key)
            methods = {s.name: s for s in node.body if isinstance(s, FUNCTIONS)} if (
                node is not None) else {}
            method = next((methods[m] for m in TRUTH_METHODS if m in methods), None)
            self._truths[key] = (method, _picked_fields(methods.values())) if (
                method is not None and method.args.args) else None
        return self._truths[key]

    def reads_kept_size(self, cls: ClassFacts, gate: Gate) -> bool:
        """Whether the kept state ``gate`` decides on is a pool's capacity (its message)."""
        if gate.kind in ("call", "global", "local"):
            return bool(gate.bits & SIZE and not gate.bits & STATE)
        return self._kept_size(cls, gate.name)

    def _kept_size(self, cls: ClassFacts, name: str) -> bool:
        """``self.<name>`` keeps a pool's capacity (``pool.size_swa``, pages counted from
        ``pool.size``) read outside per-forward code: a decision on it decides for that pool,
        not for the one a FROZEN_KV swap installs (the draft's own pool is a 64-token dummy)."""
        if any(c.properties.get(name) is False for c in cls.family):
            return False  # a live property (a subclass's override too)
        stores = self.stores_of(cls, name)
        if any(not s.sink or s.resolver for s in stores):
            return False  # re-read per forward, or made by the resolver
        kept = [s.bits for s in stores] + [
            Taint(summary.stores.get(name, 0)) for c in cls.family for summary in c.foreign]
        return any(bits & SIZE and not bits & (RECORD | INNER) for bits in kept)

    def kept_pool_attr(self, cls: ClassFacts) -> bool:
        """The resolved pool attribute is resolved by its name only: a store of it outside a
        resolver keeps pool state (``self._swa_kv_pool = pool if isinstance(pool, SWAKVPool)
        else None``: the pool of the moment, no allocator asked), so a test of it is stale."""
        name = self.options.pool_attr
        return any(s.sink and not s.resolver and s.bits & STATE and not s.bits & INNER
                   for s in self.stores_of(cls, name)) or any(
            Taint(summary.stores.get(name, 0)) & STATE and not Taint(
                summary.stores[name]) & INNER for c in cls.family for summary in c.foreign)

    def _chosen(self, cls: ClassFacts, name: str) -> bool:
        """Every store of ``self.<name>`` keeps a value a pool type test picked and nothing
        else (an enum member, a class or the object built from it): a field of it is that
        verdict (``is_chosen_verdict``)."""
        sinks = [s for s in self.stores_of(cls, name) if s.sink]
        return bool(sinks) and all(is_chosen_verdict(s.bits) for s in sinks)

    def stale_mirror(self, cls: ClassFacts, store: Store) -> bool:
        """A kept test of the pool attribute the class keeps unresolved (``self.swa_enabled =
        self._swa_kv_pool is not None`` where ``_swa_kv_pool`` is the pool of the moment): the
        verdict of the type test that picked that pool, kept (KVP002's), as a gate on that
        pool's presence is (KVP003's); a mirror of a resolved pool is KVP004's."""
        bits = store.bits
        return bool(store.sink and not store.resolver and bits & MIRROR and not untrusted(bits)
                    and not bits & (STATE | BUILT) and self.kept_pool_attr(cls))

    def set_only_under_decision(self, cls: ClassFacts, name: str) -> bool:
        """``self.<name>`` is set, outside per-forward code, only where a kept pool decision
        (a stored flag, a type test of the pool) allowed it, here and by every base (or heir)
        of another module storing it (``ClassSummary.decided``): whether it exists at all
        (``hasattr(self, name)``) is that decision."""
        stores = [s for s in self.stores_of(cls, name) if s.scope == "self"]
        foreign = [summary for c in cls.family for summary in (*c.foreign, *c.heirs)
                   if name in summary.stores]
        return bool(stores or foreign) and all(
            s.sink and not s.resolver and (s.bits & GATED or s.under & TYPE_TESTS and (
                s.under & STALE or _under_pool_test(cls, s))) for s in stores) and all(
            name in summary.decided for summary in foreign) and not _set_either_way(cls, stores)

    def _made_only_under_flag(self, cls: ClassFacts, name: str) -> bool:
        """``self.<name>`` is None unless a pool decision kept past the swap allowed it (a
        graph buffer allocated under ``if self.is_swa:`` or under a type test of the runner's
        pool, None elsewhere): whether it is there is that decision."""
        stores = [s for s in self.stores_of(cls, name) if s.scope == "self"]
        made = [s for s in stores if not _vacant(s.value)]
        empty = any(_vacant(s.value) or _vacant_side(s.value) for s in stores)
        return bool(made) and empty and all(
            s.sink and not s.resolver and (s.bits & GATED or s.under & TYPE_TESTS and (
                s.under & STALE or _under_pool_test(cls, s)) or _vacant_side(s.value) and (
                s.bits & STATE and _under_pool_test(cls, s, s.value.test))) for s in made)

    def _picked_by_pool_test(self, cls: ClassFacts, name: str) -> bool:
        """``self.<name>`` is one of the objects a pool decision kept past the swap picked (a
        strategy, a kernel: ``Window(pool) if isinstance(pool, SWAKVPool) else Full()``, or a
        store in each branch of such an ``if``): which one it is, tested whole (its type, its
        identity), is that decision."""
        stores = [s for s in self.stores_of(cls, name) if s.scope == "self"]
        if not any(s.bits & STATE for s in stores) or not all(
                s.sink and not s.resolver for s in stores):
            return False
        if len(stores) == 1:
            value = stores[0].value
            return type(value) is ast.IfExp and not _vacant_side(value) and _under_pool_test(
                cls, stores[0], value.test)
        return all(not _vacant(s.value) and s.under & TYPE_TESTS and (
            s.under & STALE or _under_pool_test(cls, s)) for s in stores)

    def _held_fields(self, cls: ClassFacts, name: str) -> List[Taint]:
        """What the field ``name`` (``planner.translate``) of an object kept whole holds, as
        the relatives of the file and the summaries of bases (or heirs) of other modules
        record it."""
        return [c.fields[name] for c in self.relatives(cls) if name in c.fields] + [
            summary.fields[name] for c in cls.family for summary in (*c.foreign, *c.heirs)
            if name in summary.fields]

    def _kept_state(self, cls: ClassFacts, name: str, whole: bool = False) -> bool:
        """``whole``: the value itself is tested (presence, type): a container's or helper's
        is decided by what built it, not by the pool it holds."""
        if name == ACTIVE_POOL or name == self.options.pool_attr and not self.kept_pool_attr(
                cls) or any(c.properties.get(name) is False for c in cls.family):
            return False  # the resolved pool, a live property (a subclass's override too)
            # (a cached_property is a store: its first answer is kept)
        stores = self.stores_of(cls, name)
        if any(not s.sink and s.bits & STATE for s in stores):
            return False  # re-read on every forward
        if any(s.sink and not s.resolver and s.bits & STATE and not s.bits & INNER and not (
                s.bits & TYPE and not s.bits & RECORD) and not (whole and s.bits & BUILT)
               for s in stores):  # (an inner backend's own state is its own class's finding)
            return True
        if any(Taint(summary.stores.get(name, 0)) & STATE and name not in summary.flags and not (
                whole and Taint(summary.stores.get(name, 0)) & BUILT) and not (
                    summary in c.heirs and name in summary.properties)
               for c in cls.family for summary in (*c.foreign, *c.heirs)):
            return True  # kept by a base of another module, or by an heir of a mixin
        root, _, rest = name.partition(".")
        if not rest and not stores and any(c.fields.get(name, CLEAN) & STATE for c in cls.family):
            return True  # what __getattr__ answers from a kept snapshot (ClassFlow.delegate)
        if not rest or stores:
            return False
        held = self._held_fields(cls, name)
        if held:  # a field of a record or helper kept whole: self.helper.kv_pool (a container
            # tested whole, there too, is decided by what built it: ``_made_only_under_flag``)
            return any(bits & STATE and not (whole and bits & BUILT) for bits in held)
        return all(map(reads_pool_state, rest.split("."))) and self._kept_state(cls, root, whole)

    def call_flag(self, cls: ClassFacts, gate: Gate) -> Optional[Flag]:
        """A gate on ``self.<helper>(...)`` (or on a module global): a flag when what the helper
        returns for the arguments of this call is a decision made from stale state (a type
        test of the live pool passed to it is not, nor a test of the pool the class resolved,
        whatever holds it: ``not self.use_swa`` with ``self.use_swa = self._swa_kv_pool is not
        None``, as a gate on that mirror itself is not)."""
        bits = gate.bits  # (a module global read: what the class stored in it)
        if not bits & STALE or not (bits & DECISION or untrusted(bits)):
            return None
        if bits & DECISION == MIRROR and not untrusted(bits) and not self.kept_pool_attr(cls):
            return None
        if gate.use in WHOLE_USES and bits & BUILT:
            return None  # the truth of a record or object it answers (``config or make()``)
        return Flag(gate.name, pool_type=not bits & (TYPE | RUNNER | MIRROR | CHOICE))

    def _exactness(self, flag: Flag, sinks: List[Store]) -> Flag:
        if flag.derived or len(sinks) != 1 or self.times_stored(flag.name) != 1:
            return flag
        store = sinks[0]
        polarity = mirror_polarity(store.value, self.options.pool_attr)
        if polarity is None or store.bits & ~MIRROR or store.statement is None:
            return flag
        pool_stores = [s for _, s in self._stored(self.options.pool_attr)]  # every backend's
        line = store.statement.lineno
        if self.times_stored(self.options.pool_attr, foreign_only=True) or not all(
            s.method == store.method and s.node.lineno < line for s in pool_stores
        ):
            return flag  # the pool may be re-resolved after the mirror was taken
        return Flag(flag.name, store, polarity)


@dataclass(frozen=True)
class MethodTests:
    """The decisions of one method, indexed in one walk (``nodes_under`` meets an outer
    statement first): ``if_of``, each node inside the test of an ``if`` -> the first such
    ``if``; ``at_line``, a line -> the tests of the ``if``/``while``/``match`` statements whose
    branches hold it, outer first."""

    if_of: Dict[ast.AST, ast.If]
    at_line: Dict[int, List[ast.expr]]

    @classmethod
    def of(cls, method: ast.AST) -> "MethodTests":
        if_of: Dict[ast.AST, ast.If] = {}
        at_line: Dict[int, List[ast.expr]] = {}
        for node in nodes_under(method):
            test, branches = _decision(node)
            if test is None:
                continue
            if type(node) is ast.If:
                for inner in nodes_under(test):
                    if_of.setdefault(inner, node)
            lines = set()
            for branch in branches:
                lines.update(range(branch.lineno, branch.end_lineno + 1))
            for line in lines:
                at_line.setdefault(line, []).append(test)
        return cls(if_of, at_line)


def _decision(node: ast.AST) -> tuple:
    """``(test, branches)`` of an ``if``/``while``/``match`` statement, else ``(None, [])``."""
    if isinstance(node, (ast.If, ast.While)):
        return node.test, [*node.body, *node.orelse]
    if isinstance(node, ast.Match):
        return node.subject, [s for case in node.cases for s in case.body]
    return None, []


def _is_logic(node: ast.AST) -> bool:
    return type(node) is ast.BoolOp or type(node) is ast.UnaryOp and type(node.op) is ast.Not


def keeps_decision(bits: Taint) -> bool:
    """What KVP001/KVP002 report a store for when it holds a stale decision: a flag made from
    a type test or a runner flag, a choice, a pool-type verdict, a value made under a flag."""
    return bool(bits & TYPE and not bits & RECORD or bits & (RUNNER | CHOICE | KIND | GATED))


def is_chosen_verdict(bits: Taint) -> bool:
    """A kept value a pool type or duck test picked and nothing else (``"swa" if hasattr(pool,
    "swa_kv_pool") else "full"``, an enum member, a helper's ``return "swa"`` under ``case
    SWAKVPool()``): that test's verdict spelled as a value, holding no pool data, KVP002's
    (never a pool state for KVP001; no property over the pool can stand for it). Whichever
    spelling of the pool was tested (the runner's, or ``self.token_to_kv_pool``, live when read
    but not when its verdict is kept): the store is kept, so the verdict is, as a flag's is."""
    return bool(bits & CHOICE) and not bits & VERDICT_EXCLUDED


def is_named_swa_test(store: Store) -> bool:
    """A flag named for SWA (``self.sliding_pool_active``) kept from a pool type or duck test
    of no SWA class or attribute, and nothing else (``hasattr(pool, "full_kv_pool")``: every
    split pool has one, SWA's among them): its name says it stands for the SWA decision, a
    boolean SWA flag decided once, KVP002's (KVP001 leaves it). No safe fix: the resolved SWA
    pool answers another question than its test asks (a hybrid linear pool passes it)."""
    return store.bits & ~STALE == KIND and is_swa_word(store.attr.rsplit(".", 1)[-1])


def is_flag_table(bits: Taint) -> bool:
    """A kept dict, list, tuple or set of SWA type-test verdicts and nothing else (``{i:
    isinstance(p, SWAKVPool) for i, p in enumerate(pools)}``, filled per layer in a loop): SWA
    flags decided once, KVP002's, never pool state for KVP001 (the state its keys or its shell
    carry is none: ``_flow.verdicts`` judged the elements); no property over the pool can
    stand for a table, so no safe fix either."""
    return bool(bits & VERDICTS and not bits & TABLE_EXCLUDED)


# what another store of the attribute may add that makes the table more than verdicts
TABLE_EXCLUDED = SIZE | INNER | Taint.OBJECT | KIND | RUNNER | Taint.PICKED | Taint.ALLOC


def is_swap_point(store: Store) -> bool:
    """``self.token_to_kv_pool = <runner>.token_to_kv_pool``: the attribute the swap rebinds."""
    plain = isinstance(store.value, (ast.Name, ast.Attribute)) or (
        isinstance(store.value, ast.Call)
        and isinstance(store.value.func, ast.Name)
        and store.value.func.id == "getattr"
    )
    return store.attr == ACTIVE_POOL and plain and store.bits & STATE == POOL


def shown_sink(store: Store) -> str:
    """How a sink reads in a message: ``self.x``, ``cls.x``, the global ``x``, ``f()``'s cache."""
    return {"self": f"self.{store.attr}", "class": f"class attribute {store.attr}",
            "module": f"module global {store.attr}",
            "cache": f"the cache of {store.attr}"}[store.scope]


def _copies_resolved(value: Optional[ast.AST], attr: str) -> bool:
    """``value`` is what another backend resolved (``self.steps[0]._swa_kv_pool``, ``inner.
    _swa_kv_pool if inner else None``): its resolver's answer, checked where it is made."""
    if type(value) is ast.IfExp:
        return all(_is_none(side) or _copies_resolved(side, attr)
                   for side in (value.body, value.orelse))
    return type(value) is ast.Attribute and value.attr == attr and not is_self(value.value)


def _foreign_flag(cls: ClassFacts, name: str, bound: bool) -> Optional[Flag]:
    """What a base class of another module (or an heir of a mixin) says ``name`` is: a stale
    flag (never rewritable from here), a live property (``Flag("")``: not a flag), or nothing
    (None). An heir's property does not make ``name`` live where ``cls`` binds it (``bound``)."""
    for relative in cls.family:
        for summary in (*relative.foreign, *relative.heirs):
            if name in summary.flags:
                return Flag(name)
            if name in summary.properties and not (bound and summary in relative.heirs):
                return Flag("")
    return None


def _filled_value(node: ast.AST, holder: str) -> Optional[ast.AST]:
    """What ``node`` puts into ``self.<holder>``: the value of an assignment to it, or the
    arguments of ``self.<holder>.append(...)`` (and the other fillers) as a tuple."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return node.value if any(self_path(t) == holder for t in targets) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in FILLERS and self_path(node.func.value) == holder:
        return ast.Tuple(elts=list(node.args), ctx=ast.Load())
    return None


def _vacant(node: Optional[ast.AST]) -> bool:
    """``None`` or an empty container (``[]``, ``{}``, ``dict()``): nothing kept."""
    return _is_none(node) or empty_value(node)


def _vacant_side(node: Optional[ast.AST]) -> bool:
    """``x if <test> else []`` (either side): whether anything is there is that test."""
    return isinstance(node, ast.IfExp) and (_vacant(node.body) or _vacant(node.orelse))


def _picked_fields(methods: Iterable[ast.AST]) -> frozenset:
    """The attributes ``methods`` (of one class) store empty or not by a decision: a choice
    with an empty side (``[m] if <test> else []``), or empty in one store and made in another
    that a decision opens (``self.tables = []`` ... ``if <test>: self.tables = [m]``)."""
    picked, vacant, made = set(), set(), set()
    for method in methods:
        holder = method.args.args[0].arg if method.args.args else ""
        decided = {id(n) for test in nodes_under(method) if type(test) is ast.If
                   for block in (test.body, test.orelse) for statement in block
                   for n in nodes_under(statement)}
        for node in nodes_under(method):
            if type(node) not in (ast.Assign, ast.AnnAssign) or node.value is None:
                continue
            for target in getattr(node, "targets", None) or [node.target]:
                if type(target) is not ast.Attribute or last_name(target.value) != holder:
                    continue
                if _vacant_side(node.value):
                    picked.add(target.attr)
                elif _vacant(node.value):
                    vacant.add(target.attr)
                elif id(node) in decided:
                    made.add(target.attr)
    return frozenset(picked | (vacant & made))


def _under_pool_test(cls: ClassFacts, store: Store, test: Optional[ast.AST] = None) -> bool:
    """``store`` sits in a block an ``if`` on a type or duck test of the active pool
    (``self.token_to_kv_pool`` or a local bound to it) opens, outside per-forward code (a
    graph buffer allocated in ``init_cuda_graph_state``): kept, that test is stale. With
    ``test``: that test (a ternary's) is such a test."""
    method = next((c.methods[store.method] for c in cls.family if store.method in c.methods),
                  None)
    if method is None or store.statement is None and test is None:
        return False
    nodes = nodes_under(method)
    pools = {t.id for n in nodes if isinstance(n, ast.Assign) and last_name(n.value) ==
             ACTIVE_POOL for t in n.targets if isinstance(t, ast.Name)}
    if test is not None:
        return _pool_type_test(test, pools)
    return any(isinstance(n, ast.If) and _pool_type_test(n.test, pools) and any(
        store.statement is m for b in (*n.body, *n.orelse) for m in nodes_under(b))
        for n in nodes)


def _set_either_way(cls: ClassFacts, stores: List[Store]) -> bool:
    """``stores`` (of one attribute) cover every block of one ``if``/``else`` (or ``try`` and
    its handlers) of a method's top level: the attribute is there whichever way the decision
    went, so whether it exists decides nothing (``self.translate = None`` in the ``else``)."""
    statements = {id(s.statement) for s in stores if s.statement is not None}
    for name in {s.method for s in stores}:
        method = next((c.methods[name] for c in cls.family if name in c.methods), None)
        for node in method.body if method is not None else ():
            if type(node) is ast.If and node.orelse:
                blocks = (node.body, node.orelse)
            elif type(node) is ast.Try and node.handlers:
                blocks = (node.body, *(handler.body for handler in node.handlers))
            else:
                continue
            if all(any(id(n) in statements for statement in block for n in nodes_under(
                    statement)) for block in blocks):
                return True
    return False


def _pool_type_test(test: ast.AST, pools: set) -> bool:
    """``isinstance(<pool>, ...)`` / ``hasattr(<pool>, ...)`` somewhere in ``test``."""
    return any(isinstance(n, ast.Call) and last_name(n.func) in ("isinstance", "hasattr")
               and n.args and (last_name(n.args[0]) == ACTIVE_POOL and isinstance(
                   n.args[0], ast.Attribute) or isinstance(n.args[0], ast.Name)
                   and n.args[0].id in pools) for n in nodes_under(test))


def _construction(cls: ClassFacts) -> set:
    """``__init__`` and what it calls (not per forward): code run once, before any swap; any
    other method (``memory_pool_bytes()``, a capture hook) may run after one."""
    found, todo = {"__init__", *cls.builders}, ["__init__", *cls.builders]
    while todo:
        for callee in cls.calls.get(todo.pop(), ()):
            if callee not in found and callee not in cls.per_forward:
                found.add(callee)
                todo.append(callee)
    return found


def _is_none(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _constant(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant)


TYPE_TEST_CALLS = frozenset({"isinstance", "issubclass", "hasattr"})


def joins_other_conditions(value: Optional[ast.AST], pool_attr: str) -> bool:
    """``isinstance(pool, SWAKVPool) and self.window > 0``: a flag joining its pool test with a
    condition no pool test carries (a window size, a layer count). The pool test alone would
    drop it: a remedy must keep it (and no fix replaces the whole flag)."""
    if not isinstance(value, ast.BoolOp):
        return False
    operands, found = [value], []
    while operands:  # (nested and/or: their operands)
        node = operands.pop()
        if isinstance(node, ast.BoolOp):
            operands.extend(node.values)
        else:
            found.append(node)
    tested = {n.args[0].id for n in nodes_under(value) if isinstance(n, ast.Call) and n.args
              and last_name(n.func) in TYPE_TEST_CALLS and isinstance(n.args[0], ast.Name)}
    return any(_tests_pool(operand, pool_attr) for operand in found) and any(
        not _tests_pool(operand, pool_attr) and _reads_beyond_pool(operand, tested)
        for operand in found)  # (a flag made from another flag has no type test to replace)


def _reads_beyond_pool(operand: ast.AST, tested: set) -> bool:
    """Whether ``operand`` reads more than the pool it tests (``pool.swa_layer_nums > 0`` does
    not: a resolver carries that, as #27491's does) or module-level names (constants, classes):
    ``self.window``, a local or a parameter would be lost in a test of the resolved pool."""
    for node in nodes_under(operand):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            root = node.value.id
            if node.attr == ACTIVE_POOL or root in tested:
                continue
            if root[:1].islower() and root not in _BUILTIN_NAMES:
                return True  # self.window, model_runner.sliding_window_size: beside the pool
        elif isinstance(node, ast.Name) and node.id not in tested and node.id != "self" \
                and node.id[:1].islower() and node.id not in _BUILTIN_NAMES:
            if not any(isinstance(p, ast.Attribute) and p.value is node for p in
                       nodes_under(operand)):
                return True  # a bare local or parameter (``window > 0``)
    return False


_BUILTIN_NAMES = frozenset(dir(builtins))


def _tests_pool(operand: ast.AST, pool_attr: str) -> bool:
    """A type or duck test (``isinstance``, ``hasattr``, ``type(x)``) or a test of the resolved
    pool attribute, possibly negated."""
    while isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not):
        operand = operand.operand
    return mirror_polarity(operand, pool_attr) is not None or any(
        isinstance(n, ast.Call) and last_name(n.func) in TYPE_TEST_CALLS or is_type_probe(n)
        for n in nodes_under(operand))


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


def _method_key(name: str, arguments: Tuple[Taint, ...], given_self: Tuple[int, ...],
                bound: bool) -> tuple:
    """The memo key of ``self.<name>(...)`` evaluated for these arguments (those at
    ``given_self``, the backend itself, dropped)."""
    if not given_self:
        return "method", name, arguments
    passed = tuple(v for i, v in enumerate(arguments) if i not in given_self)
    return "method", name, passed, given_self, bound


def analyse(tree: ast.AST, options: Options, package=None, module: str = "",
            only: Optional[frozenset] = None, path: str = "", scope=None,
            view: str = "", flows: Optional[dict] = None,
            builds: Optional[bool] = None) -> FileFacts:
    """The facts for every backend class of ``tree`` (bases before subclasses); ``package``
    (``lint_rules.package.PackageIndex``) resolves bases and helpers of other modules;
    ``only`` names the classes to analyse instead (a base another module inherits from).
    ``flows`` (class node -> ``ClassFlow``): with a package index, filled with the flows this
    analysis runs; without one, their turns are replayed where they hold (``ClassFlow``'s
    ``earlier``: the codemod's same-file analysis of a tree the package analysis read).
    ``builds``: whether the text may hold a builder (``_vocab.may_build``; None: look)."""
    facts = FileFacts(tree, options)
    facts.package, facts.path = package, path
    if scope is None:
        scope = ModuleScope(tree, package, module, path) if package is not None else (
            ModuleScope(tree))
        scope.builds = builds
    facts.scope = scope
    classes = scope.class_nodes
    if only is not None:
        nodes = [node for node in (*classes, *(builder_classes(scope, options) if (
            view == BUILDER_VIEW) else ())) if node.name in only]
    else:
        foreign = package.backend_names(scope) if package is not None else frozenset()
        nodes = backend_classes(tree, options, foreign, classes)
        if package is not None:  # classes package backends of other modules inherit
            nodes += [node for node in classes
                      if node.name in package.mixins and node not in nodes]
        nodes += builder_classes(scope, options)
    if not nodes:
        return facts
    _prepare(facts, nodes, scope, view)
    _run_flows(facts, options, scope, {} if flows is None else flows)
    return facts


def builder_classes(scope: ModuleScope, options: Options) -> List[ast.ClassDef]:
    """One class statement per backend class of another module (or of none known) that
    functions of this module build and keep state on (``ModuleScope.builders``): a heir of
    that class whose methods are those functions, made once per scope."""
    made = getattr(scope, "_builder_nodes", None)
    if made is None:
        made = scope._builder_nodes = [
            builder_class(f"<built {ast.unparse(kind) if kind is not None else 'backend'}>",
                          kind, methods, methods[0])
            for kind, methods in scope.builders(options)[1]]
        writers = state_writers(scope, options)
        if writers:  # (what they keep in the module outlives them, as a backend's would)
            made.append(builder_class("<module state>", None, writers, writers[0]))
    return made


def state_writers(scope: ModuleScope, options: Options) -> List[ast.AST]:
    """The functions of the module, outside any class and building no backend, that read the
    active pool (or the allocator) and store into a global of the module (``REGISTRY[kind] =
    isinstance(runner.token_to_kv_pool, SWAKVPool)``, ``global MODE; MODE = ...``), each as a
    method of no backend (``builder_method``): what they keep there is module state, a sink."""
    own, other = scope.builders(options)
    built = {m.name for methods in (*own.values(), *(m for _, m in other)) for m in methods}
    found = []
    for statement in getattr(scope.tree, "body", ()):
        if type(statement) not in FUNCTIONS or statement.name in built:
            continue
        nodes = nodes_under(statement)
        if not any(type(n) is ast.Attribute and n.attr in (ACTIVE_POOL, ALLOCATOR)
                   for n in nodes):
            continue
        declared = {name for n in nodes if type(n) is ast.Global for name in n.names}
        local = set(params_of(statement)) | {n.id for n in nodes if type(n) is ast.Name and type(
            n.ctx) is ast.Store and n.id not in declared}
        if any(_global_target(n, scope.globals | declared, local) for n in nodes):
            found.append(builder_method(statement, "", ()))
    return found


def _global_target(node: ast.AST, globals_: set, local: set) -> bool:
    """``node`` stores into a global (``NAME = ...`` declared global, ``NAME[k] = ...``,
    ``NAME.attr = ...`` with ``NAME`` a global of the module and no local of the function)."""
    targets = node.targets if type(node) is ast.Assign else [node.target] if type(node) in (
        ast.AugAssign, ast.AnnAssign) else []
    for target in targets:
        while type(target) in (ast.Subscript, ast.Attribute):
            target = target.value
        if type(target) is ast.Name and target.id in globals_ and target.id not in local:
            return True
    return False


def _run_flows(facts: FileFacts, options: Options, scope: ModuleScope, flows: dict) -> None:
    """Every class's flow, bases first. With a package index, a class whose flow a summary
    for another module already ran from the same inputs (``PackageIndex.kept_flow``) takes
    what that run left, provided its same-file bases did too: one flow per class and run."""
    package, taken = facts.package, set()
    for cls in sorted(facts.classes, key=lambda c: len(c.family)):
        if package is None:
            ClassFlow(cls, options, scope, flows.get(cls.node)).run()
            continue
        # (each relative's summaries: a same-file base's mixins are bare in a heir's view)
        inputs = tuple((c.node, c.foreign, c.heirs) for c in cls.family)
        kept = package.kept_flow(cls.node, inputs) if taken.issuperset(
            c.node for c in cls.family[1:]) else None
        if kept is None:
            package.run_flow(cls.node, inputs, functools.partial(_flowed, cls, options, scope),
                             tuple(cls.family))
            flows[cls.node] = _RUNS[cls.node]
        else:
            _take_flow(cls, kept)
            taken.add(cls.node)
            if _RUNS.get(cls.node) is not None and _RUNS[cls.node].facts is kept:
                flows[cls.node] = _RUNS[cls.node]  # (the run that left it)


# class node -> its latest flow run with a package index (a summary's too): the engine's
# same-file analysis of the class replays its turns where they hold (``ClassFlow.earlier``)
_RUNS: "weakref.WeakKeyDictionary[ast.AST, ClassFlow]" = weakref.WeakKeyDictionary()


def _flowed(cls: ClassFacts, options: Options, scope: ModuleScope) -> ClassFacts:
    flow = ClassFlow(cls, options, scope)
    flow.run()
    _RUNS[cls.node] = flow  # (once run whole)
    return cls


_FLOW_INPUTS = ("family", "foreign", "heirs")  # the analysis's own; the kept run's are equal


def _take_flow(cls: ClassFacts, kept: ClassFacts) -> None:
    """``cls`` as the flow left ``kept``: every field but its inputs, containers copied."""
    for name in (f.name for f in dataclasses.fields(ClassFacts)):
        if name not in _FLOW_INPUTS:
            value = getattr(kept, name)
            setattr(cls, name, copy.copy(value) if isinstance(value, (list, dict)) else value)


def _prepare(facts: FileFacts, nodes: list, scope: ModuleScope, view: str = "") -> None:
    """The facts of ``nodes`` and of the same-file classes they inherit, each with its family
    and (with a package index) its bases and heirs in other modules; no flow run yet. ``view``
    (``summarise_class``): "heir" takes the foreign mixins bare, "bare" asks no heirs too."""
    package = facts.package
    for node in _with_mixins(scope.class_nodes, nodes):
        cls = _class_facts(node, scope, facts.options)
        facts.classes.append(cls)
        facts.by_name.setdefault(cls.name, cls)
    for cls in facts.classes:
        cls.family = _family(cls, facts.by_name)
        if package is not None and view == BUILDER_VIEW:
            continue  # (what builders keep, by themselves: no base's summary asks for it)
        if package is not None:
            cls.foreign = package.foreign_bases(scope, cls.node,
                                                bare_mixins=view in ("heir", "bare"))
            if not getattr(cls.node, BUILDER_MARK, False):  # what builders elsewhere keep
                cls.foreign += package.builder_summaries(scope, cls.name)
            # a mixin's self is the backend that inherits it
            if view != "bare" and cls.name in package.mixins:
                cls.heirs = package.subclass_summaries(scope, cls.name, siblings_bare=bool(view))


@dataclass(frozen=True)
class Instance:
    """An object of a class once built (the class's side of ``Built``): what its constructor
    and the methods it runs store on it, whether it is an attention backend, whether it keeps
    a ``token_to_kv_pool`` of its own, and whether its constructor hands an argument on where
    the analysis does not follow (``super().__init__(pool)``, a base of another library)."""

    fields: Dict[str, Taint]
    backend: bool
    swap_point: bool
    loose: bool
    entered: Optional[Taint] = None  # what ``with obj as x`` binds (its ``__enter__``'s return)


def instance_summary(scope: ModuleScope, name: str, arguments: tuple, keywords: tuple,
                     options: Options, called: str = "") -> Optional[Instance]:
    """What an object of class ``name`` of ``scope`` holds when built with arguments holding
    these taints: its class analysed with ``__init__``'s parameters bound to them. A backend is
    asked whether it keeps a pool of its own (its state is its own class's finding) and, handed
    pool state (``_hands_state``), which of its attributes keep it. ``called``: what it holds
    once its method of that name is called with those arguments instead (``hooks.register(
    "evict", partial(f, pool.swa_kv_pool))``: a helper object that keeps what it is handed,
    an inner backend handed pool state or a decision on it); None for a class with no such
    method."""
    node = scope.classes.get(name)
    if node is None:
        return None
    facts = FileFacts(scope.tree, options)
    facts.package, facts.path = scope.package, scope.path
    _prepare(facts, [node], scope)
    target = facts.by_name[name]
    backend = name in scope.backend_names(options)
    handed = union((*arguments, *(v for _, v in keywords)))  # (a backend keeps, of what it
    kept = (STATE if handed & STATE else CLEAN) | (handed & PICKERS)  # is handed, the fields
    if called:  # it made of it: its other state is its own class's finding)
        if backend and not _hands_state(arguments, keywords):
            return None
        found = _called_summary(facts, target, called, arguments, keywords, options, scope)
        return found if found is None or not backend else Instance(
            {k: v for k, v in found.fields.items() if v & kept}, True, False, False)
    if backend and not _hands_state(arguments, keywords):
        return Instance({}, True, _own_pool(target), False)
    init = next((c for c in target.family if "__init__" in c.methods), None)
    params = _bound(init.methods["__init__"], arguments, keywords) if init else {}
    method, attrs = "__init__", {}
    if init is None and name in scope.derived:  # a dataclass: fields, then __post_init__
        init, method = target, "__post_init__"
        attrs, params = _record_bound(scope.classes[name], arguments, keywords)
    for cls in sorted(facts.classes, key=lambda c: len(c.family)):
        ClassFlow(cls, options, scope).run(*((params, method, attrs) if cls is init else ()))
    fields: Dict[str, Taint] = dict(attrs)
    for cls in target.family:
        for store in cls.stores:
            if store.sink and store.scope in ("self", "class"):
                fields[store.attr] = fields.get(store.attr, CLEAN) | store.bits
        for summary in cls.foreign:
            for attr, bits in summary.stores.items():
                fields[attr] = fields.get(attr, CLEAN) | Taint(bits)
        for prop in cls.properties:  # translator.enabled: its getter run on what the object
            # keeps answers for the pool it was given (stale); one reading the pool of the
            # backend it holds back (Helper(self)) answers for the pool of each read: no field
            if cls.returns.get(prop, CLEAN) & STALE and prop not in fields:
                fields[prop] = cls.returns[prop]
    if backend:  # handed pool state: what it keeps of it (its other state is its own finding)
        return Instance({k: v for k, v in fields.items() if v & kept}, True,
                        _own_pool(target), False)
    loose = init is None or _hands_on(init.methods[method], {
        name for c in target.family for name in c.methods})
    enters = [c.returns.get(m, CLEAN) for c in target.family for m in ENTERS if m in c.methods]
    # (made from its arguments: kept only where they were; one returning itself is the object)
    entered = union(enters) & ~STALE | union(arguments) & STALE if enters and not any(
        _returns_self(c.methods[m]) for c in target.family for m in ENTERS
        if m in c.methods) else None
    return Instance(fields, False, False, loose, entered)


def _called_summary(facts: "FileFacts", target: "ClassFacts", called: str, arguments: tuple,
                    keywords: tuple, options: Options, scope: ModuleScope) -> Optional[Instance]:
    """``instance_summary`` of an object whose method ``called`` is called with these
    arguments: what its attributes hold after it (its other methods run as they are)."""
    owner = next((c for c in target.family if called in c.methods), None)
    if owner is None or called.startswith("__"):
        return None
    params = _bound(owner.methods[called], arguments, keywords)
    if not params:
        return None
    for cls in sorted(facts.classes, key=lambda c: len(c.family)):
        ClassFlow(cls, options, scope).run(*((params, called) if cls is owner else ()))
    fields: Dict[str, Taint] = {}
    for cls in target.family:
        for store in cls.stores:
            if store.sink and store.scope == "self" and store.method == called:
                fields[store.attr] = fields.get(store.attr, CLEAN) | store.bits
    return Instance(fields, False, False, False)


def _hands_state(arguments: tuple, keywords: tuple) -> bool:
    """An argument is the pool, state read off it (``kv_pool=pool.swa_kv_pool``) or a decision
    on it (``window_kv=isinstance(...)``), not an object built around it (an inner backend
    handed on: its own finding) nor the runner."""
    return any(v & (STATE | PICKERS) and not v & BUILT
               for v in (*arguments, *(v for _, v in keywords)))


def _returns_self(method: ast.AST) -> bool:
    """``return self`` somewhere in ``method`` (``__enter__`` handing out the object itself)."""
    positional = [*method.args.posonlyargs, *method.args.args]
    return bool(positional) and any(
        type(n) is ast.Return and type(n.value) is ast.Name and n.value.id == positional[0].arg
        for n in nodes_under(method))


def _bound(function: ast.AST, arguments: tuple, keywords: tuple) -> Dict[str, Taint]:
    """What each parameter of ``function`` (a method: its first parameter is the object) holds
    for a call with these positional and keyword argument taints."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)][1:]
    bound = dict(zip(positional, arguments))
    if args.vararg is not None and len(arguments) > len(positional):
        bound[args.vararg.arg] = union(arguments[len(positional):])
    _bind_keywords(bound, function, keywords)
    return {param: value for param, value in bound.items() if value}


def _record_bound(node: ast.ClassDef, arguments: tuple,
                  keywords: tuple) -> Tuple[Dict[str, Taint], Dict[str, Taint]]:
    """What a dataclass built with these argument taints holds before its ``__post_init__``
    runs: its fields (in declaration order, but ``ClassVar``s and ``field(init=False)``), and
    what ``__post_init__``'s parameters (its ``InitVar`` fields, in order) are given."""
    fields, passed = [], []
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        marks = {last_name(n) for n in nodes_under(statement.annotation)}
        value = statement.value
        if "ClassVar" in marks or isinstance(value, ast.Call) and any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in value.keywords):
            continue
        fields.append((statement.target.id, "InitVar" in marks))
    given = dict(zip((f for f, _ in fields), arguments))
    given.update((key, value) for key, value in keywords if key)
    post = next((s for s in node.body if isinstance(s, FUNCTIONS) and s.name == "__post_init__"),
                None)  # (None: a second class of that name defines it)
    params = params_of(post) if post is not None else []  # (no self)
    for (field_name, _), param in zip((f for f in fields if f[1]), params):
        passed.append((param, given.pop(field_name, CLEAN)))
    attrs = {f: given[f] for f, initvar in fields if not initvar and given.get(f)}
    return attrs, {p: v for p, v in passed if v}


def _hands_on(function: ast.AST, own: Iterable[str] = ()) -> bool:
    """``super().__init__(x)`` / ``Base.__init__(self, x)``: arguments go to a constructor
    this summary does not follow; so do a parameter handed to a method the class inherits
    from a library base (``self.register_buffer("map", mapping)``: ``nn.Module`` keeps it)."""
    params = set(params_of(function))
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr == "__init__" and (
                node.keywords or len(node.args) > (0 if _is_super_call(node.func.value) else 1)):
            return True
        if is_self(node.func.value) and node.func.attr not in own and any(
                type(a) is ast.Name and a.id in params
                for a in (*node.args, *(k.value for k in node.keywords))):
            return True
    return False


def _is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and last_name(node.func) == "super"


def _keeps_pool(cls: ClassFacts) -> bool:
    """The class (or a base) binds ``self.token_to_kv_pool``: what a FROZEN_KV swap rebinds."""
    return any("own" in c.pool_binds or ACTIVE_POOL in c.properties for c in cls.family) or any(
        ACTIVE_POOL in s.stores or ACTIVE_POOL in s.properties
        for c in cls.family for s in c.foreign)


def _own_pool(cls: ClassFacts) -> bool:
    """``_keeps_pool``, but for a class whose ``token_to_kv_pool`` is a property with no setter
    returning another object's (``self._parent().token_to_kv_pool``): a view of that object's
    pool, which that object's swap rebinds, not a pool of its own."""
    if not _keeps_pool(cls):
        return False
    getters = [c.methods[ACTIVE_POOL] for c in cls.family if ACTIVE_POOL in c.properties]
    if not getters or any("own" in c.pool_binds or SWAP_SETTER in c.methods
                          for c in cls.family):
        return True
    returned = [n.value for g in getters for n in nodes_under(g)
                if type(n) is ast.Return and n.value is not None]
    return not returned or not all(
        type(r) is ast.Attribute and r.attr == ACTIVE_POOL and not is_self(r.value)
        for r in returned)


def _by_lineage(cls: ClassFacts, options: Options) -> bool:
    """The class inherits an attention backend (a base named ``...Backend`` or configured, here
    or in another module): one a FROZEN_KV swap can be handed, unlike a class that only follows
    the protocol (SGLang's multi-step draft wrappers, whose per-step backends are swapped)."""
    return any(b.endswith(BACKEND_SUFFIX) or b in options.backend_bases
               for c in cls.family for b in c.bases) or any(
        s.backend for c in cls.family for s in c.foreign)


def _handed_to(cls: ClassFacts) -> Optional[frozenset]:
    """The ``self`` attributes whose objects the swapped pool is handed to (``_handing``); None
    when it cannot be told and every one counts: the ``token_to_kv_pool`` property is a base's
    in another module (its setter unseen), or has no setter (the swap cannot assign it)."""
    if any(ACTIVE_POOL in s.properties for c in cls.family for s in c.foreign):
        return None
    setters = [c.methods[SWAP_SETTER] for c in cls.family if SWAP_SETTER in c.methods]
    if not setters and any(ACTIVE_POOL in c.properties for c in cls.family):
        return None
    binders = [function for c in cls.family for name, function in c.methods.items()
               if name != SWAP_SETTER and "handed" in _scan(function)[2]]
    if not setters and not binders:
        return frozenset()
    methods = {name: function for c in reversed(cls.family)
               for name, function in c.methods.items()}  # (a subclass's own wins)
    return handed_to(setters, binders, methods)


def _hands_pool_on(cls: ClassFacts) -> bool:
    """A ``token_to_kv_pool`` property (its setter hands the swapped pool to what the class
    holds) or a method binding ``<other>.token_to_kv_pool``: the swap reaches inner objects."""
    return any("handed" in c.pool_binds or ACTIVE_POOL in c.properties for c in cls.family) or any(
        ACTIVE_POOL in s.properties for c in cls.family for s in c.foreign)


def _family(cls: ClassFacts, by_name: Dict[str, ClassFacts]) -> List[ClassFacts]:
    found, todo = [cls], list(cls.bases)
    while todo:
        base = by_name.get(todo.pop(0))
        if base is not None and base not in found:
            found.append(base)
            todo.extend(base.bases)
    return found


def module_function_effects(scope: ModuleScope, name: str, arguments: tuple,
                            options: Options, keywords: tuple = (),
                            given_self: Tuple[int, ...] = ()) -> tuple:
    """``(returned, fields, globals, handed)``: what function ``name`` (or factory ``"C.of"``)
    of another module returns for arguments holding these taints (the arguments at
    ``given_self`` the backend itself), the fields of the record it builds, the module globals
    it sets (``(name, taint, under, memo)``, named by ``_global_name``; ``memo``: the memo a
    lazy fill of it tests, or "") and its stores on objects its arguments hold (``(position,
    path, taint)``)."""
    owner_name, _, method = name.rpartition(".")
    if not owner_name and scope.is_resolver(name):
        return CLEAN, {}, (), ()
    holder = ClassFacts("<module>", None, ())
    holder.family = [holder]
    owner = _Pass(ClassFlow(holder, options, scope), AttrEnv())
    func = ast.Attribute(value=ast.Name(id=owner_name, ctx=ast.Load()), attr=method,
                         ctx=ast.Load()) if owner_name else ast.Name(id=name, ctx=ast.Load())
    returned = owner.function_returns(func, tuple(arguments), keywords=keywords,
                                      given_self=given_self)
    fields = owner.function_fields(func, tuple(arguments), keywords, given_self)
    kept = tuple((_global_name(scope, made.attr), made.taint, made.under,
                  made.memo if made.lazy else "") for made in
                 owner.function_globals(func, tuple(arguments), keywords, given_self)
                 if made.taint)
    handed = tuple(owner.function_param_stores(func, tuple(arguments), keywords, given_self))
    return ((returned or CLEAN) | (STALE if returned and name in scope.cached else CLEAN),
            fields, tuple(made for made in kept if made[0]), handed)


def _global_name(scope: ModuleScope, attr: str) -> Optional[str]:
    """The run's name of module global ``attr`` of ``scope`` (``X``, ``X.field``, an imported
    table ``T``): dotted by the module defining it, as the package index names that module
    (``PackageIndex.global_name``), whoever stores into it or reads it."""
    root, dot, rest = attr.partition(".")
    if dot and root not in scope.globals:
        return attr  # (a third module's, set by a function of it called there: named so)
    target = scope.imports.get(root)
    if target is None:
        return f"{scope.module}.{attr}"
    found = scope.package.global_name(target, scope.path)
    return f"{found}{dot}{rest}" if found else None


def runner_built(scope: ModuleScope, name: str, attr: str, options: Options) -> Taint:
    """What runner class ``name`` of ``scope`` stores as ``self.<attr>`` from its own pool
    (``KVIndexTranslator(token_to_kv_pool=self.token_to_kv_pool)``, a sub-pool, a bound method
    of it): the state it holds, never a decision.
    Only methods storing ``self.<attr>`` and naming the pool are run (a runner is a large
    class: nothing else of it is analysed)."""
    node = scope.classes.get(name)
    if node is None:
        return CLEAN
    bits, owner = CLEAN, None
    for method in node.body:
        if not isinstance(method, FUNCTIONS) or not _stores_self(method.body, attr, method):
            continue
        if owner is None:  # the runner as a class of no attributes: only its pool is a source
            holder = ClassFacts(name, None, ())
            holder.family = [holder]
            owner = _Pass(ClassFlow(holder, options, scope), AttrEnv())
        flow = MethodFlow(owner, method, method.name, runners=set()).run(method.body)
        bits |= union(e.taint for e in flow.stores if e.attr == attr and e.scope == "self")
    # an object built around the pool is kept as a record of it (what a store of it holds),
    # not as one bound to it: its verdicts (translator.is_translating) are no SWA test, but
    # what is made from it or under one outside per-forward code is kept with it (_flow)
    return bits & (STATE | RECORD) | STALE if bits & STATE else CLEAN


def _stores_self(statements, attr: str, method: ast.AST) -> bool:
    """A statement at any depth of ``statements`` assigns ``self.<attr>`` a value naming the
    pool, or a local the method binds from it (statements only: no other expression of a
    large method is walked, and no flow runs for a store that cannot hold the pool)."""
    for statement in statements:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [
                statement.target]
            if any(self_attr(t) == attr for t in targets) and _mentions(
                    statement.value, (ACTIVE_POOL, *_pool_locals(method))):
                return True
        for inner in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(statement, inner, None)
            if isinstance(block, list) and not isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
                if _stores_self(block, attr, method):
                    return True
    return False


def _pool_locals(method: ast.AST) -> tuple:
    """Locals of ``method`` bound (at any statement depth) to a value naming the pool."""
    found = []
    todo = list(method.body)
    while todo:
        statement = todo.pop()
        if isinstance(statement, ast.Assign) and _mentions(statement.value, (ACTIVE_POOL,)):
            found.extend(n.id for t in statement.targets for n in nodes_under(t)
                         if isinstance(n, ast.Name))
        if not isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            for inner in ("body", "orelse", "finalbody", "handlers", "cases"):
                block = getattr(statement, inner, None)
                todo.extend(block if isinstance(block, list) else ())
    return tuple(found)


BUILDER_VIEW = "builder"  # ``summarise_builders``' analysis: builders alone


def summarise_builders(scope: ModuleScope, qualified: str, options: Options) -> tuple:
    """``package.ClassSummary`` per class statement made for builders of ``scope``'s module
    (``builder_classes``) of the class ``qualified`` (``pkg.mod.XBackend``): the pool state
    they keep on the backend they built, and which of it is a stale SWA flag, as that class's
    own code sees it (a gate on ``self.<flag>`` there)."""
    from lint_rules.package import ClassSummary

    names = frozenset(node.name for node in builder_classes(scope, options)
                      if scope.qualified(node.bases[0]) == qualified)
    if not names:
        return ()
    facts = analyse(scope.tree, options, scope.package, scope.module, only=names, scope=scope,
                    view=BUILDER_VIEW)
    found = []
    for cls in facts.classes:
        stores: Dict[str, Taint] = {}
        for store in cls.stores:
            if store.sink and store.scope == "self" and store.method in cls.builders and (
                    store.bits & ~STALE):
                stores[store.attr] = stores.get(store.attr, CLEAN) | store.bits | STALE
        if stores or cls.handed_calls:
            flags = frozenset(attr for attr in stores if facts.flag(cls, attr))
            decided = frozenset(a for a in stores if facts.set_only_under_decision(cls, a))
            found.append(ClassSummary(cls.name, False, stores, flags=flags, decided=decided,
                                      calls=dict(cls.handed_calls)))
    return tuple(found)


def summarise_class(tree: ast.AST, scope: ModuleScope, name: str, options: Options,
                    view: str = ""):
    """``package.ClassSummary`` of class ``name`` of another module, as subclasses see it.
    ``view`` "bare": a mixin's, as a heir's mixins see it (no heirs of its own asked); "heir":
    ``(own, bases)``, a backend's own summary and its foreign bases' as the mixins it inherits
    see them, each mixin bare (``PackageIndex.heir_view``)."""
    from lint_rules.package import ClassSummary, merged

    facts = analyse(tree, options, scope.package, scope.module, only=frozenset({name}),
                    scope=scope, view=view)
    cls = facts.by_name.get(name)
    if cls is None:
        return None
    stores: Dict[str, Taint] = {}
    for relative in cls.family:
        for store in relative.stores:
            if store.sink and store.scope in ("self", "class"):
                # (kept: stale if it holds anything; geometry stays clean, so an object built
                # from a base's page size is not one built from kept state)
                stores[store.attr] = stores.get(store.attr, CLEAN) | store.bits | (
                    STALE if store.bits else CLEAN)
    fields: Dict[str, Taint] = {}
    for relative in cls.family:  # (a name __getattr__ answers is no field: the class's own)
        for path, bits in relative.fields.items():
            if "." in path:
                fields[path] = fields.get(path, CLEAN) | bits
    properties = {p: c.returns.get(p, CLEAN) for c in cls.family for p in c.properties}
    returns = {m: c.returns.get(m, CLEAN) for c in cls.family for m in c.methods}
    flags = frozenset(attr for attr in (*stores, *properties) if facts.flag(cls, attr))
    decided = frozenset(attr for attr in stores if facts.set_only_under_decision(cls, attr))
    backend = any(base.endswith(BACKEND_SUFFIX) or base in options.backend_bases
                  for c in cls.family for base in c.bases)
    resolvers = frozenset(m for c in cls.family for m in c.resolvers)
    own = ClassSummary(name, backend, stores, properties, returns, flags, decided, fields,
                       resolvers)
    # the foreign bases of the class and of its same-file bases (Heir(Mixin, Mid), Mid(Base)
    # of another module: Base's flag is the heir's too)
    foreign = tuple({id(s): s for c in cls.family for s in c.foreign}.values())
    if view == "heir":
        return own, foreign
    return merged([own, *foreign], name, backend)
