"""Lint engine: one text pre-filter, one libcst parse and one batched pass for all enabled rules.

Public API (used by the flake8 adapter, the CLI and the benchmarks): ``Finding``, ``ALL_CODES``,
``DEFAULT_CODES``, ``may_match``, ``lint_source``, ``fix_source``, ``ParseError``.
"""
from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Collection, Dict, List, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from lint_rules.options import Options
from lint_rules.rules import REQUIRES, RULES
from lint_rules.rules._base import REMOVE, Report
from lint_rules.rules._facts import Collector, FileContext
from lint_rules.rules._gate import could_fire

ALL_CODES: tuple[str, ...] = ("KVP001", "KVP002", "KVP003", "KVP004", "KVP900")
DEFAULT_CODES: frozenset[str] = frozenset(ALL_CODES) - {"KVP004"}


class ParseError(Exception):
    """Raised by ``parse_module`` for source libcst cannot parse (lint_source reports KVP900)."""


@dataclass(frozen=True)
class Finding:
    """One diagnostic: 1-based line, 0-based column, code and message (without the code)."""

    line: int
    col: int
    code: str
    message: str
    fixable: bool


# The same pattern flake8 uses for inline suppressions (flake8.defaults.NOQA_INLINE_REGEXP).
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")  # physical lines as Python and flake8 count them
NOQA_RE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.I)


def may_match(source: str) -> bool:
    """Cheap text test: False means no rule can fire on this source, so it is never parsed.

    A file passing it is checked for syntax (KVP900) and then, only if Python's ``ast`` shows a
    rule could fire (``rules._gate.could_fire``), parsed and analysed with libcst.
    """
    if "class" not in source:
        return False
    if "token_to_kv_pool" in source:
        return True
    lowered = source.lower()
    return "swa" in lowered or "sliding_window" in lowered


BACKEND_CLASS_RE = re.compile(r"^[ \t]*class\s+\w+\s*\([^)]*Backend\b", re.M)


def has_backend_class_text(source: str, options: Options) -> bool:
    """A ``class X(...Backend)`` line or a configured base name: no rule fires without one."""
    if "Backend" in source and BACKEND_CLASS_RE.search(source):
        return True
    return any(base in source for base in options.backend_bases)


def lint_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = False,
    tree: Optional[ast.AST] = None,
) -> List[Finding]:
    """Findings for ``source`` sorted by position; never raises on unparsable input (KVP900).

    ``tree`` is an ``ast`` of the same source when the caller has one (flake8 does).
    """
    return _Run(source, codes, options, honor_noqa, tree).findings()


def fix_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = True,
) -> tuple:
    """Apply every safe fix; return ``(new_source, findings_left)``.

    A fix is applied whole or not at all: never when its finding is suppressed or when any line
    it would touch carries a ``# noqa`` that covers a KVP code. If the result does not re-parse
    the source is returned unchanged.
    """
    run = _Run(source, codes, options, honor_noqa)
    edits = run.applicable_edits()
    if not edits:
        return source, run.findings()
    try:
        new_source = run.module.visit(_ApplyEdits(edits)).code
        cst.parse_module(new_source)
    except Exception:  # a fix that does not round-trip is dropped, never half-applied
        return source, run.findings()
    return new_source, lint_source(
        new_source, codes=codes, options=options, honor_noqa=honor_noqa
    )


def lint_source_ungated(source: str, codes: Collection[str] = DEFAULT_CODES) -> List[Finding]:
    """``lint_source`` without the ast gate: for tests that prove the gate never hides a finding."""
    return _Run(source, codes, Options(), False, gate=False).findings()


def suppressed_codes(line: str) -> Optional[tuple]:
    """None when the line has no ``# noqa``; ``()`` for a bare one; else the listed codes."""
    match = NOQA_RE.search(line)
    if match is None:
        return None
    listed = match.group("codes")
    if not listed:
        return ()
    return tuple(code.upper() for code in re.split(r"[,\s]+", listed) if code)


def is_suppressed(line: str, code: str) -> bool:
    """flake8 semantics: a bare noqa, the code itself, or a prefix of it (``KVP0``)."""
    codes = suppressed_codes(line)
    return codes is not None and (not codes or code.startswith(codes))


class _Run:
    """One file: text filter, ``ast`` gate, then one libcst parse and one batched pass."""

    def __init__(
        self, source, codes, options: Options, honor_noqa: bool, tree=None, gate: bool = True
    ) -> None:
        self.source = source
        self.codes = frozenset(code.upper() for code in codes)
        self.options = options
        self.honor_noqa = honor_noqa
        self.tree = tree
        self.module: Optional[cst.Module] = None
        self.ctx: Optional[FileContext] = None
        self.reports: List[Report] = []
        self.failure: Optional[Finding] = None
        self._positions: Dict[int, tuple] = {}
        self._spans = None
        self._lines: Optional[List[str]] = None
        self._unsafe = False  # set when libcst must not see this source at all
        if may_match(source) and (self._worth_parsing() or not (gate or self._unsafe)):
            self._analyse()

    def _worth_parsing(self) -> bool:
        """Cheap checks (CPython's C parser) that decide whether libcst must parse the file."""
        if not has_backend_class_text(self.source, self.options):
            # No backend class, nothing any rule can report. Syntax errors in such files are
            # flake8's E999 / the interpreter's business; checking them cost a quarter of a
            # cold run over SGLang's tree.
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. invalid escapes: not our business
                if self.tree is None:
                    self.tree = ast.parse(self.source)
        except (RecursionError, MemoryError):
            # too deep for CPython's parser; libcst's native parser would crash the process
            self._fail(1, 0, "nesting too deep")
            self._unsafe = True
            return False
        except (SyntaxError, ValueError, OverflowError):
            return True  # libcst decides: KVP900, or syntax it accepts and CPython does not
        try:
            return could_fire(self.tree, self.codes, self.options)
        except RecursionError:
            return True

    def _analyse(self) -> None:
        try:
            self.module = cst.parse_module(self.source)
        except cst.ParserSyntaxError as error:
            self._fail(error.raw_line, error.raw_column, str(error.message))
            return
        except Exception as error:  # libcst raises a few other types on odd input
            self._fail(1, 0, str(error).splitlines()[0] if str(error) else type(error).__name__)
            return
        wanted = set(self.codes)
        for code in list(wanted):
            wanted.update(REQUIRES.get(code, ()))
        self.ctx = FileContext(self.options)
        rules = [rule(self.ctx) for rule in RULES if rule.CODE in wanted and rule.CODE != "KVP900"]
        try:
            cst.visit_batched(self.module, [Collector(self.ctx), *rules])
            for rule in rules:
                rule.finish()
        except RecursionError:
            self.module = None
            self._fail(1, 0, "nesting too deep")
            return
        self.reports = [report for report in self.ctx.reports if report.code in self.codes]

    def _fail(self, line: int, col: int, reason: str) -> None:
        if "KVP900" in self.codes:
            message = RULES[-1].MESSAGE.format(reason=" ".join(reason.split()))
            self.failure = Finding(max(line, 1), max(col, 0), "KVP900", message, False)

    # -- positions and suppressions ---------------------------------------------------------
    def _line_text(self, number: int) -> str:
        if self._lines is None:
            self._lines = LINE_BREAK_RE.split(self.source)
        return self._lines[number - 1] if 0 < number <= len(self._lines) else ""

    def _start(self, node: cst.CSTNode) -> tuple:
        """(line, col) of a reported ``self.<attr>`` node, via the ast (cheap) when possible."""
        if not self._positions and self.tree is not None:
            self._positions = _ast_positions(self.tree, self.ctx, self._line_text)
        found = self._positions.get(id(node))
        if found is None:
            start = self._span(node).start
            found = (start.line, start.column)
        return found

    def _span(self, node: cst.CSTNode):
        if self._spans is None:  # full libcst positions: only for fixes near a `# noqa`
            self._spans = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(
                PositionProvider
            )
        return self._spans[node]

    def _suppressed(self, report: Report) -> bool:
        if not self.honor_noqa:
            return False
        return is_suppressed(self._line_text(self._start(report.node)[0]), report.code)

    def _touches_protected(self, report: Report) -> bool:
        if not self.honor_noqa or "noqa" not in self.source.lower():
            return False
        for original, _new in report.edits.values():
            span = self._span(original)
            for number in range(span.start.line, span.end.line + 1):
                if any(is_suppressed(self._line_text(number), code) for code in ALL_CODES):
                    return True
        return False

    def findings(self) -> List[Finding]:
        if self.failure is not None:
            return [self.failure]
        found = []
        for report in self.reports:
            if self._suppressed(report):
                continue
            line, col = self._start(report.node)
            fixable = bool(report.edits) and not self._touches_protected(report)
            found.append(Finding(line, col, report.code, report.message, fixable))
        return sorted(set(found), key=lambda f: (f.line, f.col, f.code, f.message))

    def applicable_edits(self) -> Dict[int, tuple]:
        merged: Dict[int, tuple] = {}
        for report in self.reports:
            if not report.edits or self._suppressed(report) or self._touches_protected(report):
                continue
            clash = any(
                key in merged and not _same(merged[key][1], new)
                for key, (_orig, new) in report.edits.items()
            )
            if not clash:
                merged.update(report.edits)
        return merged


def _ast_positions(tree: ast.AST, ctx: FileContext, line_text) -> Dict[int, tuple]:
    """Map every reported libcst ``self.<attr>`` to (line, character column) through the ast.

    Both trees list a given ``self.<attr>`` in source order, so the n-th occurrence in one is
    the n-th in the other; an attribute whose counts differ is left to libcst positions.
    """
    wanted = {}
    for report in ctx.reports:
        node = report.node
        if isinstance(node, cst.Attribute):
            wanted.setdefault(node.attr.value, set()).add(id(node))
    by_attr: Dict[str, list] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in wanted
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            by_attr.setdefault(node.attr, []).append((node.lineno, node.col_offset))
    positions = {}
    for attr, ids in wanted.items():
        ours = [use.node for use in ctx.attr_uses.get(attr, ()) if use.on_self]
        theirs = sorted(by_attr.get(attr, ()))
        if len(ours) != len(theirs):
            continue
        for node, (line, byte_col) in zip(ours, theirs):
            if id(node) in ids:
                text = line_text(line).encode("utf-8", "surrogatepass")[:byte_col]
                positions[id(node)] = (line, len(text.decode("utf-8", "replace")))
    return positions


def _same(left, right) -> bool:
    if left is right:
        return True
    if left is REMOVE or right is REMOVE:
        return False
    return left.deep_equals(right)


class _ApplyEdits(cst.CSTTransformer):
    """Applies replacements keyed on the identity of the original nodes."""

    def __init__(self, edits: Dict[int, tuple]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):
        edit = self.edits.get(id(original_node))
        if edit is not None and edit[1] is not REMOVE:
            return edit[1]
        if isinstance(updated_node, cst.IndentedBlock):
            return self._drop_statements(original_node, updated_node)
        return updated_node

    def _drop_statements(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        kept, carried = [], []
        for before, after in zip(original.body, updated.body):
            edit = self.edits.get(id(before))
            if edit is not None and edit[1] is REMOVE:
                carried.extend(after.leading_lines)  # keep the comments above a dropped line
                continue
            if carried:
                after = after.with_changes(leading_lines=[*carried, *after.leading_lines])
                carried = []
            kept.append(after)
        if len(kept) == len(updated.body):
            return updated
        if not kept:
            kept, carried = [cst.SimpleStatementLine([cst.Pass()], leading_lines=carried)], []
        return updated.with_changes(body=kept, footer=[*carried, *updated.footer])
