"""The fix model: what a finding offers to change, as data over ``ast`` positions.

A ``Fix`` has a title (shown beside the finding in text, JSON and SARIF output), an
applicability (ruff's convention: ``safe`` fixes apply with ``--fix``; ``unsafe`` ones change
behaviour on purpose and apply only with ``--unsafe-fixes``) and the changes that make it. The
rules build fixes from the ``ast`` analysis without touching libcst; ``lint_rules.fixes.apply``
parses a file with libcst only when it has a fix to apply, finds each change's node by its
position, transforms and re-emits the module (formatting, comments and newlines kept by
construction). Positions are ``ast``'s: 1-based line, 0-based UTF-8 byte column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Tuple

SAFE, UNSAFE = "safe", "unsafe"
DECLINED = "declined"  # a finding note, never a fix: the codemod was run and would not rewrite
Position = Tuple[int, int]  # 1-based line, 0-based UTF-8 byte column (ast's convention)
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")  # physical lines as Python, flake8 and libcst count them


@dataclass(frozen=True)
class ReplaceExpression:
    """The expression spanning ``start``-``end`` becomes ``text`` (parenthesised if needed)."""

    start: Position
    end: Position
    text: str


@dataclass(frozen=True)
class RemoveStatement:
    """The assignment spanning ``start``-``end`` goes; an emptied block gets ``pass`` and the
    comments and blank lines above it stay where they were."""

    start: Position
    end: Position


@dataclass(frozen=True)
class AddProperty:
    """A read-only property ``name`` over ``self.<pool_attr>`` (``is None`` when ``is_none``),
    with a setter that ignores writes, inserted after method ``after`` of the class at
    ``class_start``."""

    class_start: Position
    after: str
    name: str
    pool_attr: str
    is_none: bool = False


@dataclass(frozen=True)
class RewriteClass:
    """The whole backend class ``name`` (spanning ``start``-``end``) rewritten to the #27491
    resolver pattern by ``lint_rules.fixes.resolver.resolver_fix``; ``codes`` are the KVP
    codes found in it."""

    name: str
    start: Position
    end: Position
    codes: frozenset


@dataclass(frozen=True)
class Fix:
    """One way to resolve a finding, applied whole or not at all."""

    title: str
    applicability: str  # SAFE or UNSAFE
    changes: tuple

    @property
    def safe(self) -> bool:
        return self.applicability == SAFE

    def spans(self) -> Iterator[Tuple[Position, Position]]:
        """The source ranges the fix rewrites (an insertion between lines rewrites none)."""
        for change in self.changes:
            if hasattr(change, "end"):
                yield change.start, change.end


def char_col(line: str, byte_col: int) -> int:
    """``ast`` columns count UTF-8 bytes; findings and libcst count characters."""
    prefix = line.encode("utf-8", "surrogatepass")[:byte_col]
    return len(prefix.decode("utf-8", "replace"))


def overlap(left: Tuple[Position, Position], right: Tuple[Position, Position]) -> bool:
    """Two ranges share text (a range inside another counts)."""
    return left[0] < right[1] and right[0] < left[1]


# The unsafe class-level fix is lint_rules.fixes.resolver.resolver_fix (the #27491 codemod);
# the engine offers it at lint time without importing it (it needs libcst), on the classes the
# codemod's own checks accept (lint_rules.fixes.plan, ast only); it is applied only under
# --unsafe-fixes, which the caller passes explicitly (no module-level switch).
RESOLVED_CODES = frozenset({"KVP001", "KVP002", "KVP003"})  # the hazards the rewrite resolves
RESOLVER_TITLE = "Resolve the SWA pool through token_to_kv_pool_allocator (#27491 resolver)"
