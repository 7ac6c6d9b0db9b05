"""Registry of lint rules: one module per code, listed once in ``RULES`` (codes never change).

``ALL_CODES``, ``DEFAULT_CODES`` and ``FIXABLE`` are derived from the rule classes, and
``render_markdown()`` generates the README rule reference from them, so documentation,
``poolguard explain`` and the tests share one source.
"""
from __future__ import annotations

import inspect
from typing import Dict, Optional

from lint_rules.fixes import RESOLVED_CODES, UNSAFE_FIXES
from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules.kvp001_stale_pool_state import StalePoolState
from lint_rules.rules.kvp002_swa_type_flag import SwaTypeFlag
from lint_rules.rules.kvp003_swa_flag_gate import SwaFlagGate
from lint_rules.rules.kvp004_pool_mirror import PoolMirror
from lint_rules.rules.kvp900_parse_error import ParseFailure

RULES: tuple = (StalePoolState, SwaTypeFlag, SwaFlagGate, PoolMirror, ParseFailure)
RULES_BY_CODE = {rule.CODE: rule for rule in RULES}
ALL_CODES: tuple = tuple(rule.CODE for rule in RULES)
DEFAULT_CODES: frozenset = frozenset(rule.CODE for rule in RULES if rule.DEFAULT)
FIXABLE: frozenset = frozenset(rule.CODE for rule in RULES if rule.fixable())
SECTIONS = ("What it does", "Why is this bad?")
FIX_SAFETY = "Fix safety"  # ruff's section: which fixes are safe, and why; after the examples

__all__ = ["RULES", "RULES_BY_CODE", "ALL_CODES", "DEFAULT_CODES", "FIXABLE", "Rule", "Valid",
           "Invalid", "Report", "render_markdown", "render_rule", "doc_sections"]


def doc_sections(rule) -> Dict[str, str]:
    """The docstring's summary and its ``What it does`` / ``Why is this bad?`` / ``Fix safety``
    sections."""
    lines = inspect.cleandoc(rule.__doc__ or "").splitlines()
    found: Dict[str, list] = {"summary": [lines[0]] if lines else []}
    current = None
    for line in lines[1:]:
        heading = line.strip().rstrip(":")
        if heading in (*SECTIONS, FIX_SAFETY) and not line.startswith(" "):
            current = heading
            found[current] = []
        elif current is not None:
            found[current].append(line[4:] if line.startswith("    ") else line.strip())
    return {key: "\n".join(value).strip() for key, value in found.items()}


def _markdown(text: str) -> str:
    return text.replace("``", "`")  # docstrings use reST literals


def _fence(source: str) -> str:
    return "```python\n" + source.rstrip("\n") + "\n```"


def _options_note(options) -> str:
    changed = {k: v for k, v in vars(options).items() if v != getattr(type(options)(), k)}
    return f" (with options {changed})" if changed else ""


def render_rule(code: str, heading: str = "###") -> str:
    """Markdown for one rule in ruff's sections: What it does, Why is this bad?, Example (the
    first INVALID example), Use instead (its fix, else the first VALID example), Fix safety."""
    rule = RULES_BY_CODE[code.upper()]
    sections = doc_sections(rule)
    parts = [f"{heading} {rule.CODE} `{rule.NAME}` — {_markdown(sections['summary'])}"]
    for title in SECTIONS:
        parts.append(f"**{title}**\n\n{_markdown(sections.get(title, ''))}")
    if rule.INVALID:
        bad = rule.INVALID[0]
        where = ", ".join(f"{code} line {line}" for line, code in bad.expected)
        parts.append(f"**Example** ({where}){_options_note(bad.options)}:\n\n{_fence(bad.source)}")
        good = bad.fixed if bad.fixed is not None else (
            rule.VALID[0].source if rule.VALID else None
        )
        if good is not None:
            how = " (what `--fix` writes)" if bad.fixed is not None else ""
            parts.append(f"**Use instead**{how}:\n\n{_fence(good)}")
    if sections.get(FIX_SAFETY):
        parts.append(f"**{FIX_SAFETY}**\n\n{_markdown(sections[FIX_SAFETY])}")
    more = len(rule.VALID) + len(rule.INVALID) - 1
    parts.append(f"`poolguard explain {rule.CODE}` shows all {more + 1} examples.")
    return "\n\n".join(parts) + "\n"


INTRO = """\
The rules look only at attention backends: classes with a base whose name ends in `Backend`
(`FlashInferAttnBackend`, `mod.TritonAttnBackend`...), a base named with `--kvp-backend-bases`,
or a class of the same file that is one (with `poolguard lint DIR`, of any module of the
package, and the mixins such classes inherit). They read Python's `ast` and share one taint
analysis per class: sources are the active pool (`model_runner.token_to_kv_pool`,
`self.token_to_kv_pool`, under any runner parameter name), the runner's pool read at call time,
type and duck tests on pools, and runner-level SWA flags (`model_runner.is_hybrid_swa`); values
are followed through assignments, unpacking, the walrus operator, `typing.cast`, containers,
comprehensions, `setattr`, closures, cached properties, lazily filled attributes and same-class
helpers; sinks are attributes stored on `self` outside per-forward methods (a method named
`*forward*`, taking a batch, or called from one) and gates. Live state — a read-only property
over the current pool, or a flag recomputed from `self.token_to_kv_pool` on every forward — is
never flagged. Safe fixes (`--fix`) never change behaviour and are offered only where the file
proves it: a gate is rewritten only when its flag is exactly the pool test, and a stored flag
becomes a read-only property of the pool (with a setter that ignores writes), so readers and
writers in other modules keep working. The unsafe fix (`--fix --unsafe-fixes`) rewrites a whole
backend class to the #27491 resolver pattern and changes behaviour on purpose (each rule's
"Fix safety" says which is which).
Suppress a finding with `# noqa: KVP003` (flake8 semantics; `# noqa: KVP` or a bare `# noqa`
covers every code); `poolguard lint --fix` never rewrites a line whose `# noqa` names a KVP code.
A file is analysed only if its text mentions the rules' vocabulary (`token_to_kv_pool`, `swa`,
`sliding`, `layers_mapping`, a configured flag or pool attribute) and has a class statement whose
header names a backend base (comments, strings and nested brackets in the header are read as the
tokenizer reads them); such a file that does not parse is one KVP900 finding with the parser's
reason.
Under flake8 a syntax error is flake8's own E999 and plugins do not run on that file.
"""


def _autofix(code: str) -> str:
    kinds = ["safe"] if code in FIXABLE else []
    if UNSAFE_FIXES and code in RESOLVED_CODES:
        kinds.append("unsafe (`--unsafe-fixes`)")
    return ", ".join(kinds) or "no"


def render_markdown(code: Optional[str] = None) -> str:
    """The README rule reference: a table of codes, then each rule in four sections."""
    if code is not None:
        return render_rule(code)
    table = ["| code | name | default | autofix | what |", "| --- | --- | --- | --- | --- |"]
    for rule in RULES:
        table.append(
            f"| {rule.CODE} | `{rule.NAME}` | {'on' if rule.DEFAULT else 'off (opt-in)'} "
            f"| {_autofix(rule.CODE)} | {_markdown(rule.summary())} |"
        )
    sections = [render_rule(rule.CODE) for rule in RULES]
    return "## Lint rules\n\n" + INTRO + "\n" + "\n".join(table) + "\n\n" + "\n".join(sections)
