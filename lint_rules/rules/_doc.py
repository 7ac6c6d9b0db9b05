"""A rule's documentation as one typed record, parsed once from its class.

The README rule reference, ``poolguard explain`` and SARIF rule metadata all render from
``RuleDoc``; none of them reads a docstring or an example itself.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, NamedTuple, Optional, Tuple

SECTIONS = ("What it does", "Why is this bad?")
FIX_SAFETY = "Fix safety"  # ruff's section: which fixes are safe, and why; after the examples


class Example(NamedTuple):
    """One ``Valid``/``Invalid`` example of a rule."""

    source: str
    fixed: Optional[str]  # what ``--fix`` writes; None for valid or unfixable examples
    expected: Tuple[Tuple[int, str], ...]  # the (line, code) findings it must produce
    options: Dict[str, object]  # the options it sets away from their defaults

    @property
    def lines(self) -> Tuple[int, ...]:
        """The flagged line numbers, each once, in order."""
        return tuple(sorted({line for line, _code in self.expected}))


@dataclass(frozen=True)
class RuleDoc:
    """ruff's sections of one rule: What it does, Why is this bad?, Example, Use instead and
    Fix safety, with the summary line, the whole docstring and every example."""

    code: str
    name: str
    default: bool
    summary: str
    doc: str  # the whole docstring, cleaned
    what: str
    why: str
    fix_safety: str
    valid: Tuple[Example, ...]
    invalid: Tuple[Example, ...]

    @property
    def example(self) -> Optional[Example]:
        """The Example section: the first invalid example."""
        return self.invalid[0] if self.invalid else None

    @property
    def use_instead(self) -> Optional[str]:
        """The Use instead section: the example's fix, else the first valid example."""
        if self.example is not None and self.example.fixed is not None:
            return self.example.fixed
        return self.valid[0].source if self.valid else None


def _sections(doc: str) -> Dict[str, str]:
    """The docstring's headed sections (a heading is an unindented ``Title:`` line)."""
    found: Dict[str, list] = {}
    current = None
    for line in doc.splitlines()[1:]:
        heading = line.strip().rstrip(":")
        if heading in (*SECTIONS, FIX_SAFETY) and not line.startswith(" "):
            current = heading
            found[current] = []
        elif current is not None:
            found[current].append(line[4:] if line.startswith("    ") else line.strip())
    return {key: "\n".join(value).strip() for key, value in found.items()}


def _example(example) -> Example:
    options = example.options
    changed = {k: v for k, v in vars(options).items() if v != getattr(type(options)(), k)}
    return Example(example.source, getattr(example, "fixed", None),
                   tuple(getattr(example, "expected", ())), changed)


@lru_cache(maxsize=None)
def rule_doc(rule) -> RuleDoc:
    """The record of one rule class."""
    doc = inspect.cleandoc(rule.__doc__ or "")
    sections = _sections(doc)
    return RuleDoc(
        code=rule.CODE, name=rule.NAME, default=rule.DEFAULT,
        summary=doc.splitlines()[0] if doc else rule.CODE, doc=doc,
        what=sections.get(SECTIONS[0], ""), why=sections.get(SECTIONS[1], ""),
        fix_safety=sections.get(FIX_SAFETY, ""),
        valid=tuple(_example(e) for e in rule.VALID),
        invalid=tuple(_example(e) for e in rule.INVALID),
    )


def rule_docs() -> Tuple[RuleDoc, ...]:
    """One record per registered rule, in code order."""
    from lint_rules.rules import RULES

    return tuple(sorted((rule_doc(rule) for rule in RULES), key=lambda d: d.code))
