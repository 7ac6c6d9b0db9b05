"""Registry of lint rules: one module per code, listed once in ``RULES`` (codes never change).

``ALL_CODES``, ``DEFAULT_CODES`` and ``FIXABLE`` are derived from the rule classes, and
``render_markdown()`` generates the rule reference (docs/rules.md) and ``render_readme()`` the
README's compact table from each rule's ``RuleDoc``
(``_doc.py``), the record ``poolguard explain`` and SARIF render too.
"""
from __future__ import annotations

from typing import Optional

from lint_rules.fixes import RESOLVED_CODES
from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules._doc import FIX_SAFETY, SECTIONS, rule_doc, rule_docs
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

__all__ = ["RULES", "RULES_BY_CODE", "ALL_CODES", "DEFAULT_CODES", "FIXABLE", "Rule", "Valid",
           "Invalid", "Report", "render_markdown", "render_readme", "render_rule", "render_table",
           "rule_doc", "rule_docs"]


def _markdown(text: str) -> str:
    return text.replace("``", "`")  # docstrings use reST literals


def _fence(source: str) -> str:
    return "```python\n" + source.rstrip("\n") + "\n```"


def _options_note(options: dict) -> str:
    return f" (with options {options})" if options else ""


def render_rule(code: str, heading: str = "###") -> str:
    """Markdown for one rule in ruff's sections: What it does, Why is this bad?, Example,
    Use instead, Fix safety (all from its ``RuleDoc``)."""
    doc = rule_doc(RULES_BY_CODE[code.upper()])
    parts = [f"{heading} {doc.code} `{doc.name}` — {_markdown(doc.summary)}"]
    for title, text in zip(SECTIONS, (doc.what, doc.why)):
        parts.append(f"**{title}**\n\n{_markdown(text)}")
    bad = doc.example
    if bad is not None:
        where = ", ".join(f"{code} line {line}" for line, code in bad.expected)
        parts.append(f"**Example** ({where}){_options_note(bad.options)}:\n\n{_fence(bad.source)}")
        if doc.use_instead is not None:
            how = " (what `--fix` writes)" if bad.fixed is not None else ""
            parts.append(f"**Use instead**{how}:\n\n{_fence(doc.use_instead)}")
    if doc.fix_safety:
        parts.append(f"**{FIX_SAFETY}**\n\n{_markdown(doc.fix_safety)}")
    count = len(doc.valid) + len(doc.invalid)
    parts.append(f"`poolguard explain {doc.code}` shows all {count} examples.")
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
    if code in RESOLVED_CODES:
        kinds.append("unsafe (`--unsafe-fixes`)")
    return ", ".join(kinds) or "no"


def render_table() -> str:
    """The compact rule table: one row per registered rule (the README shows this)."""
    table = ["| code | name | default | autofix | what |", "| --- | --- | --- | --- | --- |"]
    for doc in map(rule_doc, RULES):
        table.append(
            f"| {doc.code} | `{doc.name}` | {'on' if doc.default else 'off (opt-in)'} "
            f"| {_autofix(doc.code)} | {_markdown(doc.summary)} |"
        )
    return "\n".join(table) + "\n"


def render_readme() -> str:
    """The README's rule block: the table, how to suppress, and where the full reference is."""
    return (
        "## Lint rules\n\n" + render_table() + "\n"
        "Suppress a finding with `# noqa: KVP003` (`# noqa: KVP` or a bare `# noqa` covers every"
        " code).\nEach rule's full documentation, examples and fix safety: `poolguard explain"
        " KVP001` or\n[docs/rules.md](docs/rules.md) (generated from the same rule registry).\n"
    )


def render_markdown(code: Optional[str] = None) -> str:
    """The full rule reference (docs/rules.md): the table, then each rule in four sections."""
    if code is not None:
        return render_rule(code)
    sections = [render_rule(rule.CODE) for rule in RULES]
    return "# Lint rules\n\n" + INTRO + "\n" + render_table() + "\n" + "\n".join(sections)
