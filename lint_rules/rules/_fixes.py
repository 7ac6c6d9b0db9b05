"""Fixes as text edits over ``ast`` positions, built from the shared facts.

Two fixes exist, both behaviour-preserving by construction: a gate on a flag that is exactly the
pool test becomes that pool test, and a stored flag becomes a read-only property derived from the
pool (with a setter that ignores writes), so readers and writers in other files keep working.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from lint_rules.rules._facts import ClassFacts, FileFacts, Flag, Gate, Store
from lint_rules.rules._flow import is_self

Position = Tuple[int, int]  # 1-based line, 0-based UTF-8 byte column (ast's convention)


@dataclass(frozen=True)
class TextEdit:
    """Replace the text between two positions; ``start == end`` inserts."""

    start: Position
    end: Position
    text: str


def pool_test(pool_attr: str, is_none: bool) -> str:
    return f"self.{pool_attr} is {'' if is_none else 'not '}None"


def gate_rewrite(gate: Gate, flag: Optional[Flag], pool_attr: str) -> Tuple[TextEdit, ...]:
    """The gate as the pool test, only when the flag is exactly that test (else no edit)."""
    if flag is None or flag.exact is None or gate.kind == "call":
        return ()
    definition = flag.exact.statement
    if gate.method == flag.exact.method and gate.node.lineno <= definition.end_lineno:
        return ()  # read before the flag exists
    target = gate.target
    new = pool_test(pool_attr, is_none=gate.negated == flag.polarity)
    return (TextEdit((target.lineno, target.col_offset),
                     (target.end_lineno, target.end_col_offset), new),)


def property_fix(
    facts: FileFacts, cls: ClassFacts, store: Store, lines: Sequence[str], is_none: bool = False
) -> Tuple[TextEdit, ...]:
    """Drop ``self.<flag> = ...`` and add a read-only ``<flag>`` property over the pool."""
    statement, pool_attr = store.statement, facts.options.pool_attr
    if not _removable(store, lines) or not facts.provides_pool(cls):
        return ()
    if facts.times_stored(store.attr) != 1 or any(
        store.attr in c.methods for c in facts.relatives(cls)
    ):
        return ()
    method = cls.methods.get(store.method)
    if method is None or _read_before_pool(method, store.attr, facts, cls):
        return ()
    if store.alone:
        drop = TextEdit((statement.lineno, statement.col_offset),
                        (statement.end_lineno, statement.end_col_offset), "pass")
    else:
        drop = TextEdit((statement.lineno, 0), (statement.end_lineno + 1, 0), "")
    indent = lines[method.lineno - 1][: len(lines[method.lineno - 1]) - len(
        lines[method.lineno - 1].lstrip())]
    text = _property_text(store.attr, pool_attr, indent, is_none)
    return drop, TextEdit((method.end_lineno + 1, 0), (method.end_lineno + 1, 0), text)


def _property_text(name: str, pool_attr: str, indent: str, is_none: bool) -> str:
    body = [
        "",
        "@property",
        f"def {name}(self):",
        '    """Read-only view of the resolved pool: it cannot disagree with it."""',
        f'    return getattr(self, "{pool_attr}", None) is {"" if is_none else "not "}None',
        "",
        f"@{name}.setter",
        f"def {name}(self, value):",
        "    pass  # code that still assigns the flag is ignored: the pool decides",
    ]
    return "".join((indent + line if line else "") + "\n" for line in body)


def _removable(store: Store, lines: Sequence[str]) -> bool:
    """A single-target assignment to ``self.<flag>`` alone on its lines, outside a resolver."""
    statement = store.statement
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or not store.sink or store.resolver:
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1 or targets[0] is not store.node:
        return False
    first = lines[statement.lineno - 1].encode("utf-8", "surrogatepass")
    last = lines[statement.end_lineno - 1].encode("utf-8", "surrogatepass")
    tail = last[statement.end_col_offset:].strip()
    return not first[: statement.col_offset].strip() and (not tail or tail.startswith(b"#"))


def _read_before_pool(method: ast.AST, name: str, facts: FileFacts, cls: ClassFacts) -> bool:
    """A read of ``self.<name>`` in the defining method before the pool attribute is set there:
    the property would answer from a pool that does not exist yet."""
    pool_lines: List[int] = [
        s.statement.end_lineno if s.statement is not None else s.node.lineno
        for c in cls.family for s in c.stores
        if s.attr == facts.options.pool_attr and s.method == getattr(method, "name", "")
    ]
    resolved = max(pool_lines, default=0)
    return any(
        isinstance(node, ast.Attribute) and node.attr == name and is_self(node.value)
        and isinstance(node.ctx, ast.Load) and node.lineno <= resolved
        for node in ast.walk(method)
    )
