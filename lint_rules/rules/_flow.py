"""Per-method data flow of SWA state over Python's ``ast``: what each expression holds.

A value is a set of bits (``POOL``: the pool object; ``SWA``: SWA-specific data read from a
pool; ``TYPE``: a boolean decided by a type or duck test; ``RUNNER``: a runner-level SWA flag;
``MIRROR``: a test of the resolved pool attribute; ``STALE``: decided from state that the pool
swap does not update). ``MethodFlow`` runs one method's statements in order, binding locals and
reporting every ``self.<attr>`` store and gate to its ``ClassFlow`` (``_facts``), which turns
them into the typed facts the rules query.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Protocol

from lint_rules.rules._vocab import (
    ACTIVE_POOL,
    ALLOCATOR,
    ALLOCATOR_POOL,
    TYPE_PROBES,
    is_flag_name,
    is_geometry,
    is_swa_word,
)

POOL, SWA, TYPE, RUNNER, MIRROR, STALE = 1, 2, 4, 8, 16, 32
RECORD = 64  # a container, closure or object built around the state: its own fields are not
STATE = POOL | SWA
DECISION = TYPE | RUNNER | MIRROR
FILLERS = frozenset({"append", "extend", "add", "update", "insert", "setdefault"})
CONTAINERS = frozenset({"dict", "list", "tuple", "set", "frozenset", "SimpleNamespace",
                        "partial", "OrderedDict", "MappingProxyType", "deque"})


def last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def self_attr(node: ast.AST) -> Optional[str]:
    """``X`` for ``self.X`` and ``getattr(self, "X"[, default])``; None otherwise."""
    if isinstance(node, ast.Attribute) and is_self(node.value):
        return node.attr
    if isinstance(node, ast.Call) and last_name(node.func) == "getattr" and len(node.args) > 1:
        name = const_str(node.args[1])
        return name if name is not None and is_self(node.args[0]) else None
    return None


def const_str(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def swa_type_name(node: ast.AST) -> bool:
    """A class name holding ``SWA`` (or a tuple with one), or a string naming SWA state."""
    if isinstance(node, ast.Tuple):
        return any(swa_type_name(el) for el in node.elts)
    text = const_str(node)
    return is_swa_word(text if text is not None else last_name(node))


def container(bits: int) -> int:
    """What a container, a closure or a call result holding ``bits`` holds: state, not a flag."""
    held = (bits & (STATE | STALE)) | (SWA if bits & TYPE else 0)
    return held | RECORD if held & STATE else 0


def params_of(function: ast.AST) -> List[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return [a.arg for a in every if a is not None and a.arg not in ("self", "cls")]


class FlowOwner(Protocol):
    """What a method's flow asks of its class (``_facts.ClassFlow``), without importing it."""

    name: str
    pool_attr: str
    record_types: frozenset
    functions: Dict[str, ast.AST]  # module-level functions of the file
    function_returns: Dict[tuple, int]

    def is_per_forward(self, name: str) -> bool: ...

    def returns(self, name: str) -> int: ...

    def attr_value(self, attr: str) -> int: ...

    def store(self, flow, attr, node, statement, value, bits: int) -> None: ...

    def runner_pool_read(self, flow, node: ast.Attribute) -> None: ...


class MethodFlow:
    """Forward taint over one method body (or a nested function / lambda evaluated later)."""

    def __init__(self, owner: FlowOwner, function: ast.AST, name: str, deferred=False):
        self.owner, self.function, self.name = owner, function, name
        self.per_forward = owner.is_per_forward(name)
        params = params_of(function)
        # in a construction-time method any parameter may be the runner
        self.runners = {p for p in params if p.endswith("runner") or not self.per_forward}
        self.deferred = deferred  # a closure body: self.token_to_kv_pool is read when called
        self.env: Dict[str, int] = {}
        self.allocators: set = set()
        self.returned = 0
        self.guards: List[str] = []  # self attrs tested by enclosing ifs (lazy fills)
        self.control: List[int] = []  # what the enclosing conditions decided
        self.alone = False

    # -- expressions ------------------------------------------------------------------------
    def bits(self, node: Optional[ast.AST]) -> int:
        if node is None:
            return 0
        handler = getattr(self, "_" + type(node).__name__, None)
        return handler(node) if handler else 0

    def _Name(self, node: ast.Name) -> int:
        return self.env.get(node.id, 0)

    def is_runner(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute) and not is_self(node.value):
            node = node.value  # model_runner.model_config.is_hybrid_swa: rooted at the runner
        if isinstance(node, ast.Name):
            return node.id in self.runners or node.id.endswith("runner")
        return (self_attr(node) or "").endswith("runner")

    def _Attribute(self, node: ast.Attribute) -> int:
        attr = self_attr(node)
        if attr is not None:
            return self.self_read(attr, node)
        if node.attr == ACTIVE_POOL and self.is_runner(node.value):
            self.owner.runner_pool_read(self, node)
            return POOL | STALE
        if is_flag_name(node.attr) and self.is_runner(node.value):
            return RUNNER | STALE
        return self.derived(self.bits(node.value), node.attr)

    @staticmethod
    def derived(base: int, attr: Optional[str]) -> int:
        """A read from a value: only SWA-specific reads of pool state stay state (geometry such
        as ``page_size`` or ``dtype`` is shared by both pools)."""
        if base & STATE and attr is not None and is_swa_word(attr) and not is_geometry(attr):
            return SWA | (base & STALE)
        return 0

    def self_read(self, attr: str, node: ast.AST) -> int:
        if attr == ACTIVE_POOL:
            return 0 if self.deferred else POOL
        return self.owner.attr_value(attr)

    def _Subscript(self, node: ast.Subscript) -> int:
        self.bits(node.slice)
        return self.bits(node.value) & (STATE | STALE)  # an element of a record is the state

    def _Call(self, node: ast.Call) -> int:
        func, args = node.func, node.args
        values = [self.bits(a) for a in args] + [self.bits(k.value) for k in node.keywords]
        name = func.id if isinstance(func, ast.Name) else ""
        if self_attr(node) is not None:  # getattr(self, "x")
            return self.self_read(self_attr(node), node)
        if name in ("isinstance", "issubclass") and len(args) == 2:
            return self.type_test(values[0], swa_type_name(args[1]))
        if name == "hasattr" and len(args) == 2 and const_str(args[1]):
            return self.type_test(values[0], is_swa_word(const_str(args[1])))
        if name == "getattr" and len(args) > 1 and const_str(args[1]):
            probe = ast.Attribute(value=args[0], attr=const_str(args[1]), ctx=ast.Load())
            return self._Attribute(ast.copy_location(probe, node))
        last = len(args) - 1  # the value of type(x), bool(x), cast(T, x)
        if name in ("type", "bool", "cast") and args:
            return self.truth(args[last], values[last]) if name == "bool" else values[last]
        if isinstance(func, ast.Attribute) and func.attr == "cast" and args:
            return values[last]
        if name in self.env:  # a local function: what it captured, not what it is given
            return self.env[name]
        if name in self.owner.functions:  # a function of the module, given these arguments
            return self.call_function(name, values[: len(args)])
        if name in CONTAINERS or name in self.owner.record_types or _is_class_name(func):
            return container(_union(values))  # a record (dataclass, namedtuple...) of its args
        if isinstance(func, ast.Attribute):
            return self.method_call(func, values)
        return 0

    def method_call(self, func: ast.Attribute, values: List[int]) -> int:
        owner = func.value
        if func.attr == ALLOCATOR_POOL and self.is_allocator(owner):
            return POOL  # the allocator's pool, taken without looking at the active one
        if is_self(owner) or last_name(owner) == self.owner.name:
            return self.owner.returns(func.attr)
        if func.attr == "partial":
            return container(_union(values))
        base = self.bits(owner)
        if base & SWA and not base & RECORD:  # mapping.items(), mapping.long(): still SWA state
            return SWA | (base & STALE)
        return self.derived(base, func.attr)

    def is_allocator(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.allocators
        return isinstance(node, ast.Attribute) and node.attr == ALLOCATOR

    def type_test(self, subject: int, swa: bool) -> int:
        """``isinstance(x, SWAKVPool)``: a flag; ``isinstance(pool, Other)``: pool state."""
        if swa:
            return TYPE | (subject & STALE)
        return SWA | (subject & STALE) if subject & STATE else 0

    def truth(self, node: ast.AST, value: int) -> int:
        """``bool(x)`` / ``not x`` / ``x is None``: a decision about whatever ``x`` holds."""
        if self_attr(node) == self.owner.pool_attr:
            return MIRROR
        decided = TYPE if value & STATE and not value & RECORD else 0
        return decided | (value & (DECISION | STALE))

    def _Compare(self, node: ast.Compare) -> int:
        parts = [node.left, *node.comparators]
        values = [self.bits(p) for p in parts]
        probes = [i for i, p in enumerate(parts) if _is_type_probe(p)]
        if probes and any(swa_type_name(p) for p in parts):
            return TYPE | (_union(values) & STALE)
        nones = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is None]
        if len(parts) == 2 and nones:
            other = 1 - nones[0]
            return self.truth(parts[other], values[other])
        union = _union(values)
        return (SWA if union & STATE else 0) | (union & (DECISION | STALE))

    def _BoolOp(self, node: ast.BoolOp) -> int:
        return _union(self.bits(v) for v in node.values)

    def _UnaryOp(self, node: ast.UnaryOp) -> int:
        value = self.bits(node.operand)
        return self.truth(node.operand, value) if isinstance(node.op, ast.Not) else value

    def _BinOp(self, node: ast.BinOp) -> int:
        self.bits(node.left), self.bits(node.right)  # walrus bindings, runner reads
        return 0  # arithmetic on pool data gives numbers (sizes, offsets), not pool state

    def _IfExp(self, node: ast.IfExp) -> int:
        test = self.bits(node.test)
        if _is_flag_read(node.test):
            test = 0  # a choice made by a stored flag is the gate's finding (KVP003)
        chosen = SWA if test & (STATE | TYPE) else 0
        return chosen | (test & STALE if chosen else 0) | self.bits(node.body) | self.bits(
            node.orelse
        )

    def _Tuple(self, node) -> int:
        return container(_union(self.bits(el) for el in node.elts))

    _List = _Set = _Tuple

    def _Dict(self, node: ast.Dict) -> int:
        return container(_union(self.bits(n) for n in (*node.keys, *node.values)))

    def _Starred(self, node: ast.Starred) -> int:
        return self.bits(node.value)

    _Await = _Starred

    def _NamedExpr(self, node: ast.NamedExpr) -> int:
        value = self.bits(node.value)
        self.bind(node.target, node.value, value, None)
        return value

    def _comprehension(self, node, results) -> int:
        saved = dict(self.env)
        iterated = 0
        for generator in node.generators:
            source = self.bits(generator.iter)
            iterated |= source
            self.bind(generator.target, generator.iter, source, None)
        value = _union(self.bits(r) for r in results)
        self.env = saved
        return container(value | (SWA if iterated & SWA else 0))

    def _ListComp(self, node) -> int:
        return self._comprehension(node, [node.elt])

    _SetComp = _GeneratorExp = _ListComp

    def _DictComp(self, node: ast.DictComp) -> int:
        return self._comprehension(node, [node.key, node.value])

    def _Lambda(self, node: ast.Lambda) -> int:
        return container(self.closure(node, [node.body]))

    def call_function(self, name: str, arguments: List[int]) -> int:
        """What a module-level function of the file returns for arguments holding these bits."""
        key = (name, tuple(arguments))
        cache = self.owner.function_returns
        if key not in cache:
            cache[key] = 0  # recursion guard
            function = self.owner.functions[name]
            inner = MethodFlow(self.owner, function, name, deferred=self.deferred)
            inner.env = dict(zip(params_of(function), arguments))
            inner.run(function.body)
            cache[key] = inner.returned
        return cache[key]

    def closure(self, function: ast.AST, body: list) -> int:
        """What a nested function or lambda captures: evaluated as if called later."""
        inner = MethodFlow(self.owner, function, self.name, deferred=True)
        inner.runners = set(self.runners)
        inner.env = {k: v for k, v in self.env.items() if k not in params_of(function)}
        if isinstance(function, ast.Lambda):
            return inner.bits(body[0])
        inner.run(body)
        return inner.returned

    # -- statements -------------------------------------------------------------------------
    def run(self, statements: Iterable[ast.stmt]) -> None:
        statements = list(statements)
        for statement in statements:
            self.statement(statement, len(statements) == 1)

    def statement(self, node: ast.stmt, alone: bool) -> None:
        self.alone = alone  # a store whose statement is alone in its block: a fix needs `pass`
        if isinstance(node, ast.Assign):
            value = self.bits(node.value)
            for target in node.targets:
                self.assign(target, node.value, value, node)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, node.value, self.bits(node.value), node)
        elif isinstance(node, ast.AugAssign):
            extra = self.bits(node.value)
            self.bind(node.target, node.value, extra | self.bits(node.target), None)
        elif isinstance(node, ast.Return):
            self.returned |= self.bits(node.value)
        elif isinstance(node, ast.Expr):
            self.expression_statement(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.env[node.name] = container(self.closure(node, node.body))
        elif not isinstance(node, ast.ClassDef):
            self.compound(node)

    def expression_statement(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call) and last_name(call.func) == "setattr" and len(call.args) == 3:
            name = const_str(call.args[1])
            if name is not None and is_self(call.args[0]):
                self.owner.store(self, name, call.args[1], None, call.args[2],
                                 self.bits(call.args[2]))
                return
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in FILLERS
            and self_attr(call.func.value) is not None
        ):  # self.pools.append(pool): the container on self now holds the state
            held = container(_union(self.bits(a) for a in call.args))
            if held:
                self.owner.store(self, self_attr(call.func.value), call.func.value, None,
                                 call, held)
                return
        self.bits(call)

    def compound(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.bind(node.target, node.iter, self.bits(node.iter), None)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, item.context_expr,
                              self.bits(item.context_expr), None)
        guard = _guarded_attr(node.test) if isinstance(node, ast.If) else None
        test = getattr(node, "test", None)
        decided = self.bits(test) if test is not None else 0
        if _is_flag_read(test):
            decided = 0  # branching on a stored flag is the gate's finding (KVP003), not a copy
        # a flag set to True/False under a type test carries that test (control dependence)
        self.control.append((TYPE if decided & STATE else 0) | (decided & (DECISION | STALE)))
        self.guards.append(guard or "")
        self.branches(node)
        self.guards.pop()
        self.control.pop()

    def branches(self, node: ast.stmt) -> None:
        """Run every block of a compound statement; a name stays tainted if any block taints it."""
        blocks = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(node, "handlers", ())]
        blocks += [case.body for case in getattr(node, "cases", ())]
        before, merged = dict(self.env), dict(self.env)
        for block in blocks:
            if block:
                self.env = dict(before)
                self.run(block)
                for name, value in self.env.items():
                    merged[name] = merged.get(name, 0) | value
        self.env = merged

    def assign(self, target, value_node, value: int, statement) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value_node, (ast.Tuple, ast.List)) and len(value_node.elts) == len(
                target.elts
            ):
                for t_el, v_el in zip(target.elts, value_node.elts):
                    self.assign(t_el, v_el, self.bits(v_el), None)
                return
            for element in target.elts:
                self.bind(element, value_node, value, None)
            return
        self.bind(target, value_node, value, statement)

    def bind(self, target, value_node, value: int, statement) -> None:
        if isinstance(value_node, ast.Constant) and isinstance(value_node.value, bool):
            value |= _union(self.control)
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, value_node, value, None)
        elif isinstance(target, ast.Name):
            self.env[target.id] = value
            if self.is_allocator(value_node):
                self.allocators.add(target.id)
            else:
                self.allocators.discard(target.id)
        elif isinstance(target, ast.Attribute) and is_self(target.value):
            self.owner.store(self, target.attr, target, statement, value_node, value)
        elif isinstance(target, ast.Subscript) and self_attr(target.value) is not None:
            # self.pools[i] = pool: the container on self now holds the state
            self.owner.store(self, self_attr(target.value), target.value, None, value_node,
                             container(value))


def _union(values: Iterable[int]) -> int:
    result = 0
    for value in values:
        result |= value
    return result


def _is_class_name(func: ast.AST) -> bool:
    """``SwaState(...)`` / ``mod.SwaState(...)``: a constructor, by the CapWords convention."""
    name = last_name(func)
    return name[:1].isupper() and not name.isupper()


def _is_flag_read(test: Optional[ast.AST]) -> bool:
    """``self.flag`` or ``not self.flag``: a condition that only reads stored state."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return test is not None and self_attr(test) is not None


def _is_type_probe(node: ast.AST) -> bool:
    """``type(x)``, ``x.__class__``, ``type(x).__name__``: the exact type of something."""
    if isinstance(node, ast.Call):
        return last_name(node.func) == "type" and len(node.args) == 1
    return isinstance(node, ast.Attribute) and node.attr in TYPE_PROBES


def _guarded_attr(test: ast.AST) -> Optional[str]:
    """``self.x`` in ``if self.x is None`` / ``if not self.x`` / ``if not hasattr(self, "x")``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
        if isinstance(test, ast.Call) and last_name(test.func) == "hasattr" and len(test.args) == 2:
            return const_str(test.args[1]) if is_self(test.args[0]) else None
    if isinstance(test, ast.Compare) and len(test.comparators) == 1:
        test = test.left
    return self_attr(test)
