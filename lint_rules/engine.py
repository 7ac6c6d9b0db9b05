"""Lint engine: one text pre-filter, one libcst parse and one batched pass for all enabled rules.

Public API (used by the flake8 adapter, the CLI and the benchmarks): ``Finding``, ``ALL_CODES``,
``DEFAULT_CODES``, ``may_match``, ``lint_source``, ``fix_source``, ``ParseError``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Collection, Dict, List, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from lint_rules.options import Options
from lint_rules.rules import REQUIRES, RULES
from lint_rules.rules._base import REMOVE, Report
from lint_rules.rules._facts import Collector, FileContext

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
NOQA_RE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.I)


# Text signals of each rule; a file with none of them is never parsed (see may_match).
POOL_READ_RE = re.compile(r"(?:model_runner|self)\s*\.\s*token_to_kv_pool\b|[\"']token_to_kv_pool[\"']")
SWA_NAME_RE = re.compile(r"swa(?!p)", re.I)
BACKEND_CLASS_RE = re.compile(r"^[ \t]*class\s+\w+\s*\([^)]*Backend\b", re.M)


def may_match(source: str, options: Options = Options()) -> bool:
    """Cheap text test: False means no rule can fire on this source, so it is never parsed.

    Every rule needs an attention-backend class (a ``class X(...Backend)`` line or a
    ``--kvp-backend-bases`` name) and one of: an active-pool read on ``model_runner``/``self``
    (KVP001), an SWA flag or the pool attribute by name (KVP003/KVP004), or a type test next to
    an ``SWA`` name (KVP002). This keeps the libcst parse off almost every file of a tree.
    """
    if "class" not in source:
        return False
    extra = options.backend_bases
    if not (
        ("Backend" in source and BACKEND_CLASS_RE.search(source))
        or any(base in source for base in extra)
    ):
        return False
    if POOL_READ_RE.search(source):
        return True
    names = ("use_sliding_window_kv_pool", options.pool_attr, *options.swa_flags)
    if any(name in source for name in names):
        return True
    return ("isinstance" in source or "type" in source) and bool(SWA_NAME_RE.search(source))


def lint_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = False,
) -> List[Finding]:
    """Findings for ``source`` sorted by position; never raises on unparsable input (KVP900)."""
    return _Run(source, codes, options, honor_noqa).findings()


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
    """One parse and one batched pass over one file."""

    def __init__(self, source: str, codes, options: Options, honor_noqa: bool) -> None:
        self.source = source
        self.codes = frozenset(code.upper() for code in codes)
        self.options = options
        self.honor_noqa = honor_noqa
        self.module: Optional[cst.Module] = None
        self.reports: List[Report] = []
        self.failure: Optional[Finding] = None
        self._positions = None
        self._lines: Optional[List[str]] = None
        if may_match(source, options):
            self._analyse()

    def _analyse(self) -> None:
        try:
            self.module = cst.parse_module(self.source)
        except cst.ParserSyntaxError as error:
            self._fail(error.raw_line, error.raw_column, str(error.message))
            return
        except (RecursionError, Exception) as error:  # libcst raises a few other types
            self._fail(1, 0, str(error).splitlines()[0] if str(error) else type(error).__name__)
            return
        wanted = set(self.codes)
        for code in list(wanted):
            wanted.update(REQUIRES.get(code, ()))
        ctx = FileContext(self.options)
        rules = [rule(ctx) for rule in RULES if rule.CODE in wanted and rule.CODE != "KVP900"]
        try:
            cst.visit_batched(self.module, [Collector(ctx), *rules])
            for rule in rules:
                rule.finish()
        except RecursionError:
            self.module = None
            self._fail(1, 0, "nesting too deep")
            return
        self.reports = [report for report in ctx.reports if report.code in self.codes]

    def _fail(self, line: int, col: int, reason: str) -> None:
        if "KVP900" in self.codes:
            message = RULES[-1].MESSAGE.format(reason=" ".join(reason.split()))
            self.failure = Finding(max(line, 1), max(col, 0), "KVP900", message, False)

    # -- positions and suppressions ---------------------------------------------------------
    def _position(self, node: cst.CSTNode):
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        return self._positions[node]

    def _line_text(self, number: int) -> str:
        if self._lines is None:
            self._lines = self.source.splitlines()
        return self._lines[number - 1] if 0 < number <= len(self._lines) else ""

    def _suppressed(self, report: Report) -> bool:
        line = self._position(report.node).start.line
        return self.honor_noqa and is_suppressed(self._line_text(line), report.code)

    def _touches_protected(self, report: Report) -> bool:
        if not self.honor_noqa:
            return False
        for original, _new in report.edits.values():
            span = self._position(original)
            for number in range(span.start.line, span.end.line + 1):
                if suppressed_codes(self._line_text(number)) is not None and any(
                    is_suppressed(self._line_text(number), code) for code in ALL_CODES
                ):
                    return True
        return False

    def findings(self) -> List[Finding]:
        if self.failure is not None:
            return [self.failure]
        found = []
        for report in self.reports:
            if self._suppressed(report):
                continue
            start = self._position(report.node).start
            fixable = bool(report.edits) and not self._touches_protected(report)
            found.append(Finding(start.line, start.column, report.code, report.message, fixable))
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
