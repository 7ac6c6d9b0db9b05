"""Renderers for ``poolguard lint`` findings: text, json, sarif (2.1.0) and GitHub annotations.

Every renderer takes ``[(path, Finding)]`` (engine findings: 1-based line, 0-based column)
and returns a string. Columns are shown 1-based everywhere users see them, as flake8 does.
Rule metadata for SARIF and ``poolguard explain`` comes from the rule registry, never from a
copy kept here.
"""
from __future__ import annotations

import inspect
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import quote

FORMATS = ("text", "json", "sarif", "github")
TOOL_NAME = "poolguard"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

# KVP900 is reported by the engine itself, not by a rule module.
PARSE_ERROR_DOC = (
    "KVP900",
    "the file could not be parsed or decoded, so no KVP rule checked it",
    "poolguard reports a file that libcst cannot parse (a syntax error, or bytes that are not\n"
    "valid in the file's declared encoding) as one KVP900 finding on its first line instead of\n"
    "failing the run. Fix the syntax error; the other rules then check the file again.",
)


@dataclass(frozen=True)
class RuleDoc:
    """Documentation of one code, taken from its rule module."""

    code: str
    message: str
    doc: str
    valid: tuple = ()
    invalid: tuple = ()  # (source, expected fix or None) pairs


def _example_pair(example) -> tuple:
    """Normalise an INVALID example (a string, a pair, or an object with code/expected fields)."""
    if isinstance(example, str):
        return example, None
    if isinstance(example, (tuple, list)):
        return str(example[0]), example[1] if len(example) > 1 else None
    source = getattr(example, "code", None) or getattr(example, "source", None) or str(example)
    fixed = None
    for name in ("expected_replacement", "fixed", "expected", "output"):
        fixed = getattr(example, name, None) or fixed
    return source, fixed


def rule_docs() -> list:
    """One ``RuleDoc`` per known code, in code order, from ``lint_rules.rules.RULES``."""
    from lint_rules.rules import RULES

    docs = []
    for rule in RULES:
        docs.append(RuleDoc(
            code=rule.CODE,
            message=getattr(rule, "MESSAGE", ""),
            doc=inspect.cleandoc(rule.__doc__ or ""),
            valid=tuple(_example_pair(e)[0] for e in getattr(rule, "VALID", ())),
            invalid=tuple(_example_pair(e) for e in getattr(rule, "INVALID", ())),
        ))
    if not any(d.code == PARSE_ERROR_DOC[0] for d in docs):
        docs.append(RuleDoc(*PARSE_ERROR_DOC))
    return sorted(docs, key=lambda d: d.code)


def _summary(doc: RuleDoc) -> str:
    return doc.message.split(";")[0].strip() or doc.doc.split("\n")[0]


# ---------------------------------------------------------------- text / json / github

def render_text(findings: list) -> str:
    lines = []
    for path, f in findings:
        mark = " [*]" if f.fixable else ""
        lines.append(f"{path}:{f.line}:{f.col + 1}: {f.code}{mark} {f.message}")
    return "".join(line + "\n" for line in lines)


def render_json(findings: list) -> str:
    rows = [
        {"path": path, "line": f.line, "column": f.col + 1, "code": f.code,
         "message": f.message, "fixable": f.fixable}
        for path, f in findings
    ]
    return json.dumps(rows, indent=2) + "\n"


def _escape_data(text: str) -> str:
    """GitHub workflow-command escaping for the message part."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """Escaping for ``key=value`` properties, where ``:`` and ``,`` are separators."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list) -> str:
    lines = []
    for path, f in findings:
        props = (f"file={_escape_property(path.replace(os.sep, '/'))},line={f.line},"
                 f"col={f.col + 1},title={_escape_property(f.code)}")
        lines.append(f"::error {props}::{_escape_data(f'{f.code} {f.message}')}")
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------- sarif

def _artifact_location(path: str, root: Path) -> dict:
    """A relative, forward-slash URI under %SRCROOT% when possible, else an absolute file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": "%SRCROOT%"}


def _sarif_rule(doc: RuleDoc) -> dict:
    full = doc.doc or doc.message
    return {
        "id": doc.code,
        "name": doc.code,
        "shortDescription": {"text": _summary(doc)},
        "fullDescription": {"text": full},
        "help": {"text": f"{full}\n\nSee `poolguard explain {doc.code}`."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["correctness", "sglang", "kv-cache"]},
    }


def render_sarif(findings: list, *, version: str = "0", root: Optional[Path] = None) -> str:
    root = Path(os.path.abspath(root or os.getcwd()))
    docs = rule_docs()
    index = {doc.code: i for i, doc in enumerate(docs)}
    results = []
    for path, f in findings:
        result = {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f"{f.code} {f.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact_location(path, root),
                "region": {"startLine": f.line, "startColumn": f.col + 1},
            }}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    log = {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": version,
                "rules": [_sarif_rule(doc) for doc in docs],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def render(findings: list, fmt: str, *, version: str = "0") -> str:
    """Dispatch on ``fmt`` (one of ``FORMATS``)."""
    if fmt == "json":
        return render_json(findings)
    if fmt == "sarif":
        return render_sarif(findings, version=version)
    if fmt == "github":
        return render_github(findings)
    return render_text(findings)


# ---------------------------------------------------------------- explain

def render_explain(doc: RuleDoc) -> str:
    """A rule's documentation with its examples, for ``poolguard explain``."""
    out = [f"{doc.code}: {_summary(doc)}", ""]
    if doc.doc:
        out += [doc.doc, ""]
    if doc.message and doc.message not in doc.doc:
        out += ["Message:", f"    {doc.code} {doc.message}", ""]
    for number, source in enumerate(doc.valid, 1):
        out += [f"Valid example {number} (no finding):", _indent(source), ""]
    for number, (source, fixed) in enumerate(doc.invalid, 1):
        out += [f"Invalid example {number} (flagged):", _indent(source), ""]
        if fixed:
            out += ["  after `poolguard lint --fix`:", _indent(fixed), ""]
    return "\n".join(out).rstrip() + "\n"


def _indent(source: str) -> str:
    return "\n".join("    " + line if line.strip() else "" for line in
                     inspect.cleandoc(source).splitlines())
