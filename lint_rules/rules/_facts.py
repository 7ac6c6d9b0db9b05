"""Shared per-file facts and helpers for the rules (not a rule itself).

The rules depend on each other: KVP003 needs the flags KVP002 finds anywhere in the file, and
KVP002/KVP004 may only drop a flag when KVP003 can rewrite every read of it. So one collector
runs first in the same batched pass and records, cheaply, the class/method structure, every
attribute occurrence and every ``self.<attr>`` in a boolean context; the rules decide at the end
of the pass from this table. Order is tracked with a visit counter, not positions, so positions
are only computed for files that produce findings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import libcst as cst

from lint_rules.options import Options

ACTIVE_POOL = "token_to_kv_pool"
DEFAULT_FLAG = "use_sliding_window_kv_pool"
BACKEND_SUFFIX = "Backend"  # also covers ...AttnBackend / ...AttentionBackend
ALLOCATOR_HINTS = ("token_to_kv_pool_allocator", "get_kvcache")


def last_name(node: cst.BaseExpression) -> Optional[str]:
    """``Foo`` for ``Foo`` and ``a.b.Foo``; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def self_attr(node: cst.CSTNode) -> Optional[str]:
    """``X`` for ``self.X``; None otherwise."""
    if isinstance(node, cst.Attribute) and is_self(node.value):
        return node.attr.value
    return None


def is_swa_type_name(node: cst.BaseExpression) -> bool:
    """A class name (or a tuple holding one) that contains ``SWA``, any case."""
    if isinstance(node, cst.Tuple):
        return any(is_swa_type_name(el.value) for el in node.elements)
    name = last_name(node)
    return name is not None and "swa" in name.lower()


def _is_type_call(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "type"
        and len(node.args) == 1
    )


def is_swa_type_test(node: cst.BaseExpression) -> bool:
    """``isinstance(x, <SWA name>)`` or ``type(x) is/== <SWA name>`` (either side)."""
    if isinstance(node, cst.Call):
        func = node.func
        return (
            isinstance(func, cst.Name)
            and func.value == "isinstance"
            and len(node.args) == 2
            and is_swa_type_name(node.args[1].value)
        )
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Is, cst.Equal)):
            return False
        left, right = node.left, target.comparator
        return (_is_type_call(left) and is_swa_type_name(right)) or (
            _is_type_call(right) and is_swa_type_name(left)
        )
    return False


def is_swa_flag_expr(node: cst.BaseExpression) -> bool:
    """True when the boolean structure (and/or/not) of ``node`` holds an SWA type test."""
    if is_swa_type_test(node):
        return True
    if isinstance(node, cst.BooleanOperation):
        return is_swa_flag_expr(node.left) or is_swa_flag_expr(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return is_swa_flag_expr(node.expression)
    return False


@dataclass
class ClassInfo:
    """One class in the file, with what the rules need to know about it."""

    node: cst.ClassDef
    name: str
    bases: tuple
    is_backend: bool
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # method name -> visit ticks at which an assignment to self.<pool_attr> completed
    pool_assigned: Dict[str, List[int]] = field(default_factory=dict)
    # visit ticks of `self.m(...)` calls made directly in __init__, by method name
    init_calls: Dict[str, List[int]] = field(default_factory=dict)
    # methods that mention token_to_kv_pool_allocator / get_kvcache (pool resolvers)
    asks_allocator: set = field(default_factory=set)


@dataclass
class AttrUse:
    """One occurrence of ``<value>.<attr>`` anywhere in the file."""

    node: cst.Attribute
    on_self: bool
    role: str  # "store", "bool" (a boolean-context read), "call" (called method) or "load"
    cls: Optional[ClassInfo]
    method: Optional[str]
    tick: int


@dataclass
class BoolRead:
    """``self.<attr>`` used as a condition; ``target`` is the node a rewrite replaces."""

    attr: cst.Attribute
    target: cst.BaseExpression  # the attribute itself, or the enclosing `not`
    negated: bool
    cls: Optional[ClassInfo]
    method: Optional[str]
    tick: int


@dataclass
class StatementSlot:
    """Where a one-statement line lives, so a fix can drop it."""

    line: cst.SimpleStatementLine
    block: Optional[cst.BaseSuite]


class FileContext:
    """Everything shared by the rules for one file during one pass."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.tick = 0
        self.classes: List[ClassInfo] = []
        self.classes_by_name: Dict[str, ClassInfo] = {}
        self.attr_uses: Dict[str, List[AttrUse]] = {}
        self.bool_reads: List[BoolRead] = []
        self.strings: set = set()
        # (function node id, local name) -> ticks at which the name was (re)bound
        self.local_stores: Dict[tuple, List[int]] = {}
        self.reports: list = []  # lint_rules.engine.Report, filled by the rules
        self.shared: dict = {}  # cross-rule results keyed by the producing rule's code

    def backend_bases(self) -> tuple:
        return self.options.backend_bases

    def provides_pool(self, cls: Optional[ClassInfo], _seen: Optional[set] = None) -> bool:
        """The class, or a base defined in this file, assigns ``self.<pool_attr>``."""
        if cls is None:
            return False
        if cls.pool_assigned:
            return True
        seen = _seen or set()
        seen.add(cls.name)
        for base in cls.bases:
            parent = self.classes_by_name.get(base)
            if parent is not None and base not in seen and self.provides_pool(parent, seen):
                return True
        return False


class Collector(cst.BatchableCSTVisitor):
    """Fills a FileContext; always the first visitor of the batch."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.class_stack: List[ClassInfo] = []
        self.func_stack: List[cst.FunctionDef] = []
        self.method_stack: List[Optional[str]] = []  # the class-level method enclosing the node
        self.block_stack: List[cst.BaseSuite] = []
        self.scopes: list = []  # ClassInfo / FunctionDef, innermost last
        self.stores: set = set()  # ids of target nodes
        self.conditions: Dict[int, cst.BaseExpression] = {}  # id(cond) -> node a rewrite replaces
        self.negated: set = set()  # ids of conditions under `not`
        self.called: set = set()  # ids of Call.func nodes
        # `alias = self.<attr>` per (function id, alias); (function id, name) used as conditions
        self.aliases: Dict[tuple, list] = {}
        self.name_conditions: set = set()
        self.uses_by_id: Dict[int, AttrUse] = {}

    # -- structure -------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = tuple(n for n in (last_name(arg.value) for arg in node.bases) if n)
        is_backend = any(
            base.endswith(BACKEND_SUFFIX)
            or base in self.ctx.options.backend_bases
            or getattr(self.ctx.classes_by_name.get(base), "is_backend", False)
            for base in bases
        )
        info = ClassInfo(node, node.name.value, bases, is_backend)
        self.ctx.classes.append(info)
        self.ctx.classes_by_name.setdefault(info.name, info)
        self.class_stack.append(info)
        self.scopes.append(info)
        self.method_stack.append(None)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.class_stack.pop()
        self.scopes.pop()
        self.method_stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        method = self.method_stack[-1] if self.method_stack else None
        if self.scopes and isinstance(self.scopes[-1], ClassInfo):
            method = node.name.value  # a def directly in a class body is a method
            self.scopes[-1].methods.setdefault(method, node)
        self.method_stack.append(method)
        self.func_stack.append(node)
        self.scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.method_stack.pop()
        self.func_stack.pop()
        self.scopes.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.block_stack.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.block_stack.pop()

    # -- stores -----------------------------------------------------------------------------
    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mark_store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark_store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._mark_store(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._mark_store(node.target)

    def _mark_store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._mark_store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._mark_store(target.value)
        else:
            self.stores.add(id(target))

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and self_attr(node.value) and self.func_stack:
            key = (id(self.func_stack[-1]), target.value)
            self.aliases.setdefault(key, []).append(node.value)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self.ctx.tick += 1
        self._note_pool_assignment(t.target for t in original_node.targets)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self.ctx.tick += 1
        if original_node.value is not None:
            self._note_pool_assignment([original_node.target])

    def _note_pool_assignment(self, targets) -> None:
        if not self.class_stack or self.method_stack[-1] is None:
            return
        pool_attr = self.ctx.options.pool_attr
        if any(self_attr(t) == pool_attr for t in targets):
            cls = self.class_stack[-1]
            cls.pool_assigned.setdefault(self.method_stack[-1], []).append(self.ctx.tick)

    # -- conditions -------------------------------------------------------------------------
    def _condition(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            if isinstance(node.expression, cst.Name):
                node = node.expression
        if isinstance(node, cst.Name) and self.func_stack:
            self.name_conditions.add((id(self.func_stack[-1]), node.value))
            return
        if (
            isinstance(node, cst.UnaryOperation)
            and isinstance(node.operator, cst.Not)
            and isinstance(node.expression, cst.Attribute)
        ):
            self.conditions[id(node.expression)] = node
            self.negated.add(id(node.expression))
        elif isinstance(node, cst.Attribute):
            self.conditions.setdefault(id(node), node)

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._condition(node.test)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._condition(node.left)
        self._condition(node.right)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._condition(node)

    # -- occurrences ------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self.called.add(id(node.func))
        method = self.method_stack[-1] if self.method_stack else None
        name = self_attr(node.func)
        if name and method == "__init__" and self.class_stack:
            self.class_stack[-1].init_calls.setdefault(name, []).append(self.ctx.tick)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.ctx.tick += 1
        key = id(node)
        on_self = is_self(node.value)
        cls = self.class_stack[-1] if self.class_stack else None
        method = self.method_stack[-1] if self.method_stack else None
        if key in self.stores:
            role = "store"
        elif key in self.conditions:
            role = "bool"
        elif key in self.called:
            role = "call"
        else:
            role = "load"
        if cls is not None and node.attr.value in ALLOCATOR_HINTS:
            cls.asks_allocator.add(method)
        use = AttrUse(node, on_self, role, cls, method, self.ctx.tick)
        self.ctx.attr_uses.setdefault(node.attr.value, []).append(use)
        self.uses_by_id[key] = use
        if role == "bool" and on_self:
            target = self.conditions[key]
            read = BoolRead(node, target, key in self.negated, cls, method, self.ctx.tick)
            self.ctx.bool_reads.append(read)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.stores and self.func_stack:
            key = (id(self.func_stack[-1]), node.value)
            self.ctx.local_stores.setdefault(key, []).append(self.ctx.tick)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        # getattr(self, "flag") style access keeps a flag alive, so KVP002 must not drop it
        try:
            self.ctx.strings.add(node.raw_value)
        except Exception:  # odd prefixes: the string cannot name a flag anyway
            pass

    def leave_Module(self, original_node: cst.Module) -> None:
        # `has_swa = self.flag` then `if has_swa:` gates on the flag as much as `if self.flag:`
        for key, values in self.aliases.items():
            if key not in self.name_conditions:
                continue
            for value in values:
                use = self.uses_by_id.get(id(value))
                if use is not None and use.role == "load":
                    use.role = "bool"
                    read = BoolRead(value, value, False, use.cls, use.method, use.tick)
                    self.ctx.bool_reads.append(read)

    # -- statement slots (for fixes that drop a statement) ----------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) == 1:
            block = self.block_stack[-1] if self.block_stack else None
            self.ctx.shared.setdefault("slots", {})[id(node.body[0])] = StatementSlot(node, block)
