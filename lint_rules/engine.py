"""Lint engine: one text pre-filter, one libcst parse and one batched pass for all enabled rules.

Public API (used by the flake8 adapter, the CLI and the benchmarks): ``Finding``, ``ALL_CODES``,
``DEFAULT_CODES``, ``may_match``, ``lint_source``, ``fix_source``, ``ParseError``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from lint_rules.options import Options

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


def may_match(source: str) -> bool:
    """Cheap text test: False means no rule can fire on this source, so it is never parsed."""
    if "class" not in source:
        return False
    if "token_to_kv_pool" in source:
        return True
    lowered = source.lower()
    return "swa" in lowered or "sliding_window" in lowered


def lint_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = False,
) -> list[Finding]:
    """Findings for ``source`` sorted by position; never raises on unparsable input (KVP900)."""
    return []


def fix_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = True,
) -> tuple[str, list[Finding]]:
    """Apply every safe fix; return the new source and the findings that remain after it."""
    return source, lint_source(source, codes=codes, options=options, honor_noqa=honor_noqa)
