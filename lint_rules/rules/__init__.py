"""Registry of lint rules: one module per code, listed once in ``RULES`` (codes never change).

``render_markdown()`` generates the README rule reference from the rule classes themselves, so
documentation, ``poolguard explain`` and the tests share one source.
"""
from __future__ import annotations

import inspect
from typing import Optional

from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules.kvp001_stale_pool_state import StalePoolState
from lint_rules.rules.kvp002_swa_type_flag import SwaTypeFlag
from lint_rules.rules.kvp003_swa_flag_gate import SwaFlagGate
from lint_rules.rules.kvp004_pool_mirror import PoolMirror
from lint_rules.rules.kvp900_parse_error import ParseFailure

RULES: tuple = (StalePoolState, SwaTypeFlag, SwaFlagGate, PoolMirror, ParseFailure)
RULES_BY_CODE = {rule.CODE: rule for rule in RULES}

# Visitors whose pass-time facts another rule needs: KVP003's flags come from KVP002.
REQUIRES = {"KVP003": ("KVP002",)}

__all__ = ["RULES", "RULES_BY_CODE", "REQUIRES", "Rule", "Valid", "Invalid", "Report",
           "render_markdown", "render_rule"]


def _markdown(text: str) -> str:
    return text.replace("``", "`")  # docstrings use reST literals


def _fence(source: str) -> str:
    return "```python\n" + source.rstrip("\n") + "\n```"


def _options_note(options) -> str:
    changed = {k: v for k, v in vars(options).items() if v != getattr(type(options)(), k)}
    return f" (with options {changed})" if changed else ""


def render_rule(code: str, heading: str = "###") -> str:
    """Markdown for one rule: summary, explanation, then its VALID / INVALID examples."""
    rule = RULES_BY_CODE[code.upper()]
    lines = _markdown(inspect.cleandoc(rule.__doc__ or "")).splitlines()
    parts = [f"{heading} {rule.CODE} `{rule.NAME}` — {lines[0]}", "\n".join(lines[1:]).strip()]
    for example in rule.VALID:
        parts.append("Valid" + _options_note(example.options) + ":\n\n" + _fence(example.code))
    for example in rule.INVALID:
        where = ", ".join(f"{code} line {line}" for line, code in example.expected)
        parts.append(
            f"Invalid ({where}){_options_note(example.options)}:\n\n" + _fence(example.code)
        )
        if example.fixed is not None:
            parts.append("Fixed by `--fix`:\n\n" + _fence(example.fixed))
    return "\n\n".join(part for part in parts if part) + "\n"


INTRO = """\
The rules look only at attention backends: classes with a base whose name ends in `Backend`
(`FlashInferAttnBackend`, `mod.TritonAttnBackend`...), a base named with `--kvp-backend-bases`,
or a class of the same file that is one. They read one file at a time, by syntax: a flag read or
a pool attribute set in another module is invisible to them, so review cross-module readers
(e.g. `backend.use_sliding_window_kv_pool` elsewhere) before applying a fix that drops a flag.
Suppress a finding with `# noqa: KVP003` (flake8 semantics; `# noqa: KVP` or a bare `# noqa`
covers every code); `poolguard lint --fix` never rewrites a line whose `# noqa` names a KVP code.
A file is parsed only if its text mentions `class` and `token_to_kv_pool`, `swa` or
`sliding_window`; such a file that does not parse is one KVP900 finding with libcst's reason.
Under flake8 a syntax error is flake8's own E999 and plugins do not run on that file.
"""


def render_markdown(code: Optional[str] = None) -> str:
    """The README rule reference: a table of codes, then each rule with its examples."""
    if code is not None:
        return render_rule(code)
    table = ["| code | name | default | autofix | what |", "| --- | --- | --- | --- | --- |"]
    for rule in RULES:
        table.append(
            f"| {rule.CODE} | `{rule.NAME}` | {'on' if rule.DEFAULT else 'off (opt-in)'} "
            f"| {'yes' if rule.FIXABLE else 'no'} | {_markdown(rule.summary())} |"
        )
    sections = [render_rule(rule.CODE) for rule in RULES]
    return "## Lint rules\n\n" + INTRO + "\n" + "\n".join(table) + "\n\n" + "\n".join(sections)
