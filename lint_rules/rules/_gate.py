"""Second pre-filter on Python's own ``ast`` (C speed) before the libcst parse.

libcst parses and visits roughly ten times slower than ``ast``; most attention-backend files
that pass the text filter still cannot produce a finding. ``could_fire`` over-approximates every
rule (it may say yes for a clean file, never no for a file with a finding), so the libcst pass,
which decides, only runs where it can matter. Keep it in step with the rules it summarises.
"""
from __future__ import annotations

import ast
from typing import Collection, Iterator, List

from lint_rules.options import Options

ACTIVE_POOL = "token_to_kv_pool"
DEFAULT_FLAG = "use_sliding_window_kv_pool"
SWA_WORDS = ("swa", "layers_mapping", "translate_loc", "sliding")


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _self_attr(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) and _is_self(node.value) else ""


def backend_classes(tree: ast.AST, options: Options) -> List[ast.ClassDef]:
    """Classes whose base name ends in ``Backend``, is configured, or is a local backend."""
    classes = list(_class_defs(getattr(tree, "body", ())))
    found: List[ast.ClassDef] = []
    names: set = set()
    grew = True
    while grew:  # a class may derive from a local backend defined anywhere in the file
        grew = False
        for node in classes:
            if node.name in names and node in found:
                continue
            bases = [_last_name(base) for base in node.bases]
            if any(
                base.endswith("Backend") or base in options.backend_bases or base in names
                for base in bases
            ):
                found.append(node)
                names.add(node.name)
                grew = True
    return found


def _class_defs(statements) -> Iterator[ast.ClassDef]:
    """Class statements at any depth, walking statement bodies only (not expressions)."""
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            yield statement
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                yield from _class_defs(inner)


def _swa_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple):
        return any(_swa_name(el) for el in node.elts)
    return "swa" in _last_name(node).lower()


def _swa_flag_expr(node: ast.AST) -> bool:
    """Mirror of ``_facts.is_swa_flag_expr`` (loosened: any comparison with ``type(...)``)."""
    if isinstance(node, ast.BoolOp):
        return any(_swa_flag_expr(value) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _swa_flag_expr(node.operand)
    if isinstance(node, ast.Call) and _last_name(node.func) == "isinstance":
        return len(node.args) == 2 and _swa_name(node.args[1])
    if isinstance(node, ast.Compare):
        return any(_swa_name(part) for part in [node.left, *node.comparators])
    return False


def _mirror(node: ast.AST, pool_attr: str) -> bool:
    if isinstance(node, ast.Compare):
        return _self_attr(node.left) == pool_attr
    return isinstance(node, ast.Call) and any(_self_attr(arg) == pool_attr for arg in node.args)


def _is_pool_source(node: ast.AST) -> bool:
    """What KVP001 treats as the active pool, loosened: any ``<name>.token_to_kv_pool`` (the
    runner may be any parameter), ``getattr(..., "token_to_kv_pool")``, any ``.get_kvcache()``."""
    if isinstance(node, ast.Attribute) and node.attr == ACTIVE_POOL:
        owner = node.value
        return isinstance(owner, ast.Name) or (
            isinstance(owner, ast.Attribute) and _is_self(owner.value)
        )
    if isinstance(node, ast.Call) and _last_name(node.func) == "getattr" and len(node.args) > 1:
        name = node.args[1]
        return isinstance(name, ast.Constant) and name.value == ACTIVE_POOL
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get_kvcache"
    )


def _called_methods(function: ast.AST, class_name: str) -> set:
    """Names called as ``self.m(...)`` or ``ClassName.m(...)`` inside ``function``."""
    called = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if _is_self(owner) or (isinstance(owner, ast.Name) and owner.id == class_name):
                called.add(node.func.attr)
    return called


def _init_reachable(cls: ast.ClassDef) -> List[ast.AST]:
    """``__init__`` and the methods it reaches in two calls: all KVP001 ever analyses."""
    methods = {
        node.name: node
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    if "__init__" not in methods:
        return []
    reach, frontier = {"__init__"}, {"__init__"}
    for _ in range(2):
        frontier = {
            name
            for caller in frontier
            for name in _called_methods(methods[caller], cls.name)
            if name in methods and name not in reach
        }
        reach |= frontier
    return [methods[name] for name in reach]


def _is_swap_point(parent: ast.AST) -> bool:
    if isinstance(parent, ast.Assign):
        return len(parent.targets) == 1 and _self_attr(parent.targets[0]) == ACTIVE_POOL
    return isinstance(parent, ast.AnnAssign) and _self_attr(parent.target) == ACTIVE_POOL


POOL, SWA, BOUND = "pool", "swa", "bound"  # strings: True == 1 must not confuse them
TYPE_TESTS = ("isinstance", "issubclass", "type", "getattr")


def _climb(node: ast.AST, parent: ast.AST, level: int):
    """Follow KVP001's taint one step up: the new level, BOUND when stored, None if lost."""
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return)):
        if level == POOL and _is_swap_point(parent):
            return None
        return BOUND
    if isinstance(parent, ast.Attribute):
        return SWA if level == SWA or any(w in parent.attr.lower() for w in SWA_WORDS) else None
    if isinstance(parent, ast.Call):
        if parent.func is node:  # a method of the tainted value, e.g. translate_loc_...()
            return level
        name = _last_name(parent.func) if isinstance(parent.func, ast.Name) else ""
        if name in TYPE_TESTS:
            return SWA
        return SWA if name == "bool" and level == SWA else None
    if isinstance(parent, ast.IfExp):
        return SWA if parent.test is node else level
    if isinstance(parent, (ast.BoolOp, ast.Tuple, ast.List, ast.Starred)):
        return level
    if isinstance(parent, (ast.Subscript, ast.Compare)) or (
        isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)
    ):
        return SWA if level == SWA else None
    return None


def _pool_state_used(cls: ast.ClassDef) -> bool:
    """An active-pool read, reachable from ``__init__``, that can flow into a binding."""
    for method in _init_reachable(cls):
        parents = {}
        for node in ast.walk(method):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(method):
            if not _is_pool_source(node) or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            level, current = POOL, node
            while level in (POOL, SWA) and current in parents:
                level, current = _climb(current, parents[current], level), parents[current]
            if level == BOUND:
                return True
    return False


def _self_assignments(cls: ast.ClassDef) -> Iterator[ast.AST]:
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and any(_self_attr(t) for t in node.targets):
            yield node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _self_attr(node.target):
            yield node.value


def could_fire(tree: ast.AST, codes: Collection[str], options: Options) -> bool:
    """False only when no enabled rule can report anything in this module."""
    flags = {DEFAULT_FLAG, *options.swa_flags}
    for cls in backend_classes(tree, options):
        for value in _self_assignments(cls):
            if _swa_flag_expr(value) and ({"KVP002", "KVP003"} & set(codes)):
                return True
            if "KVP004" in codes and _mirror(value, options.pool_attr):
                return True
        if "KVP003" in codes and any(
            isinstance(node, ast.Attribute) and node.attr in flags for node in ast.walk(cls)
        ):
            return True
        if "KVP001" in codes and _pool_state_used(cls):
            return True
    return False
