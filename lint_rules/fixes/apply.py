"""Applying fixes with libcst: parse once, find each change's node by position, transform.

Only files with a fix to apply get here (importing libcst and computing its position metadata
cost far more than the ``ast`` analysis). Every change names the ``ast`` range of the node it
rewrites; libcst's ``PositionProvider`` gives the same ranges (characters instead of bytes,
parentheses excluded on both sides), so the mapping is exact. Untouched code is re-emitted byte
for byte by libcst; a module that would not round-trip unchanged is not fixed at all.

Class-level rewrites (``RewriteClass``, unsafe) are done by ``resolver_fix`` on the module and
win over the safe fixes inside the same class; when the resolver declines a class, that class's
safe fixes apply instead.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from lint_rules.fixes import (
    AddProperty,
    Fix,
    RemoveStatement,
    ReplaceExpression,
    LINE_BREAK_RE,
    RewriteClass,
    char_col,
)
from lint_rules.fixes.resolver import decline_reason, resolver_fix

# Contexts where a comparison needs no parentheses (it binds looser than everything else here).
_LOOSE_PARENTS = (cst.BooleanOperation, cst.If, cst.While, cst.IfExp, cst.Assert, cst.Assign,
                  cst.AnnAssign, cst.Return, cst.Arg, cst.NamedExpr, cst.Expr)
_DOC = '"""Read-only view of the resolved pool: it cannot disagree with it."""'
_IGNORED = "pass  # code that still assigns the flag is ignored: the pool decides"


def apply_fixes(source: str, fixes: Sequence[Fix], options=None, heirs=None) -> tuple:
    """``(new source or None, declined)``: ``source`` with ``fixes`` applied (non-overlapping,
    already vetted), None when libcst cannot take the module or no fix could be placed;
    ``declined`` maps each class the resolver codemod would not rewrite to why; ``heirs``:
    see ``resolver_fix``."""
    rewrites = [c for f in fixes for c in f.changes if isinstance(c, RewriteClass)]
    if "\r" in source and "\n" not in source:
        # libcst does not re-emit CR-only newlines; Python reads every CR as a line break (in
        # strings too), so the file is fixed with LF and given its CRs back
        fixed, declined = apply_fixes(source.replace("\r", "\n"), fixes, options, heirs)
        return (fixed.replace("\n", "\r") if fixed is not None else None), declined
    try:
        module = cst.parse_module(source)
    except Exception:  # libcst rejects what ast accepted (or crashes on it): no fix, no harm
        return None, {r.name: "libcst cannot parse the file" for r in rewrites}
    if module.code != source:  # would not re-emit the untouched code byte for byte
        return None, {r.name: "libcst does not re-emit the file byte for byte" for r in rewrites}
    chained, rewritten = _rewrite_classes(module, rewrites, options, heirs)
    declined = {r.name: decline_reason(module, r.name, r.codes, options, heirs)
                for r in rewrites if r not in rewritten}
    local = [f for f in fixes if f.safe and not any(_inside(f, r) for r in rewritten)]
    fixed = _Transform.run(module, source, local) if local else None
    if fixed is None:
        return (chained.code if rewritten else None), declined
    if rewritten:  # the safe fixes moved other classes: rewrite again on the fixed module
        fixed, _ = _rewrite_classes(fixed, rewritten, options, heirs)
    return fixed.code, declined


def _rewrite_classes(module: cst.Module, rewrites: List[RewriteClass], options,
                     heirs=None) -> tuple:
    """The module after every class rewrite the resolver accepts, and those rewrites."""
    done = []
    for rewrite in rewrites:
        result = resolver_fix(module, rewrite.name, rewrite.codes, options, heirs)
        # the module back unchanged: the file alone shows no hazard there (the findings came
        # from other modules), so nothing was rewritten and it is declined with that reason
        if result is not None and result is not module:
            module = result
            done.append(rewrite)
    return module, done


def _inside(fix: Fix, rewrite: RewriteClass) -> bool:
    """Every change of ``fix`` lies in the class ``rewrite`` replaces."""
    for change in fix.changes:
        start = getattr(change, "class_start", None) or change.start
        if not rewrite.start <= start <= rewrite.end:
            return False
    return True


class _Transform(cst.CSTTransformer):
    """One pass applying every position-keyed change of the safe fixes."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.module = module
        self.replace: Dict[int, cst.BaseExpression] = {}
        self.remove: set = set()
        self.properties: Dict[int, list] = {}
        self.stack: list = []

    @classmethod
    def run(cls, module: cst.Module, source: str, fixes: Sequence[Fix]) -> Optional[cst.Module]:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        index = _index(wrapper.resolve(PositionProvider))
        lines = LINE_BREAK_RE.split(source)  # ast's and libcst's lines (not str.splitlines)
        transform = cls(module)
        placed = [fix for fix in fixes if transform.place(fix, index, lines)]
        return module.visit(transform) if placed else None

    # -- placing changes on nodes -------------------------------------------------------------
    def place(self, fix: Fix, index: dict, lines: List[str]) -> bool:
        """Record every change of ``fix`` on its node; none when any change has no node."""
        found = []
        for change in fix.changes:
            node = _node_at(index, change, lines)
            if node is None:
                return False
            found.append((change, node))
        for change, node in found:
            if isinstance(change, ReplaceExpression):
                self.replace[id(node)] = cst.parse_expression(
                    change.text, config=self.module.config_for_parsing)
            elif isinstance(change, RemoveStatement):
                self.remove.add(id(node))
            else:
                self.properties.setdefault(id(node), []).append(change)
        return True

    # -- the pass -----------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        self.stack.pop()
        new = self.replace.get(id(original_node))
        if new is not None:
            return self._parenthesised(original_node, new)
        return super().on_leave(original_node, updated_node)

    def _parenthesised(self, original: cst.BaseExpression, new: cst.BaseExpression):
        if original.lpar:
            return new.with_changes(lpar=original.lpar, rpar=original.rpar)
        parent = self.stack[-1] if self.stack else None
        loose = isinstance(parent, _LOOSE_PARENTS) or (
            isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not))
        return new if loose else new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_IndentedBlock(self, original_node, updated_node):
        body, carried = [], []
        for old, new in zip(original_node.body, updated_node.body):
            if isinstance(old, cst.SimpleStatementLine) and any(
                id(s) in self.remove for s in old.body
            ):
                kept = _kept(old.body, new.body, self.remove)
                if kept:
                    body.append(new.with_changes(body=kept))
                    continue
                carried += [*new.leading_lines, *_trailing_comment(new)]
                continue
            if carried:
                new = new.with_changes(leading_lines=[*carried, *new.leading_lines])
                carried = []
            body.append(new)
        if not body:  # the block held only what went: it keeps a ``pass`` and its comments
            body, carried = [cst.SimpleStatementLine([cst.Pass()], leading_lines=carried)], []
        return updated_node.with_changes(body=body, footer=[*carried, *updated_node.footer])

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        if not any(id(s) in self.remove for s in original_node.body):
            return updated_node
        kept = _kept(original_node.body, updated_node.body, self.remove)
        return updated_node.with_changes(body=kept or [cst.Pass()])

    def leave_ClassDef(self, original_node, updated_node):
        changes = self.properties.get(id(original_node))
        if not changes:
            return updated_node
        added: Dict[str, list] = {}
        for change in changes:  # several properties after one method keep the findings' order
            added.setdefault(change.after, []).extend(_property(change, self.module))
        body = []
        for statement in updated_node.body.body:
            body.append(statement)
            if isinstance(statement, cst.FunctionDef):
                body.extend(added.pop(statement.name.value, ()))
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))


def _kept(old: Sequence, new: Sequence, remove: set) -> list:
    """The small statements of one line that stay, the last without a dangling semicolon."""
    kept = [n for o, n in zip(old, new) if id(o) not in remove]
    if kept:
        kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return kept


def _trailing_comment(line: cst.SimpleStatementLine) -> list:
    """A comment at the end of a removed line is kept, on a line of its own."""
    comment = line.trailing_whitespace.comment
    return [cst.EmptyLine(comment=comment)] if comment is not None else []


def _property(change: AddProperty, module: cst.Module) -> list:
    """The getter and the write-ignoring setter, in the module's indentation and newline."""
    i, nl, config = module.default_indent, module.default_newline, module.config_for_parsing
    test = "is None" if change.is_none else "is not None"
    getter = cst.parse_statement(
        f"@property{nl}def {change.name}(self):{nl}{i}{_DOC}{nl}"
        f'{i}return getattr(self, "{change.pool_attr}", None) {test}{nl}', config=config)
    setter = cst.parse_statement(
        f"@{change.name}.setter{nl}def {change.name}(self, value):{nl}{i}{_IGNORED}{nl}",
        config=config)
    blank = [cst.EmptyLine(indent=False)]
    return [getter.with_changes(leading_lines=blank), setter.with_changes(leading_lines=blank)]


# -- positions -----------------------------------------------------------------------------------
_KINDS = (cst.BaseExpression, cst.Assign, cst.AnnAssign, cst.ClassDef)


def _index(positions) -> dict:
    index: dict = {}
    for node, where in positions.items():
        if isinstance(node, _KINDS):
            key = ((where.start.line, where.start.column), (where.end.line, where.end.column))
            index.setdefault(key, []).append(node)
    return index


def _chars(position, lines: List[str]) -> tuple:
    line, byte_col = position
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return line, char_col(text, byte_col)


def _node_at(index: dict, change, lines: List[str]) -> Optional[cst.CSTNode]:
    """The one node of the change's kind at its range (a class: at its start)."""
    if isinstance(change, AddProperty):
        start = _chars(change.class_start, lines)
        found = [n for (s, _), nodes in index.items() if s == start for n in nodes
                 if isinstance(n, cst.ClassDef) and _has_method(n, change.after)]
    else:
        key = (_chars(change.start, lines), _chars(change.end, lines))
        kind = cst.BaseExpression if isinstance(change, ReplaceExpression) else (
            cst.Assign, cst.AnnAssign)
        found = [n for n in index.get(key, ()) if isinstance(n, kind)]
    return found[0] if len(found) == 1 else None


def _has_method(node: cst.ClassDef, name: str) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in node.body.body)
