"""Renderers for ``poolguard lint`` findings: text, json, sarif (2.1.0) and GitHub annotations.

Every renderer takes ``[(path, Finding)]`` (engine findings: 1-based line, 0-based column)
and returns a string. Columns are shown 1-based everywhere users see them, as flake8 does.
Rule metadata for SARIF and ``poolguard explain`` is each rule's ``RuleDoc``
(``lint_rules.rules._doc``), never a copy kept here.
"""
from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Optional

FORMATS = ("text", "json", "sarif", "github")
TOOL_NAME = "poolguard"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

if TYPE_CHECKING:  # the registry is imported only where rule metadata is rendered
    from lint_rules.rules._doc import RuleDoc


# ---------------------------------------------------------------- text / json / github

def valid_unicode(text: str) -> str:
    """Text as valid Unicode: file-name bytes that are not UTF-8 (kept by Python as lone
    surrogates, ``surrogateescape``) become U+FFFD, so JSON and annotations stay valid."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def applied_fix(finding, unsafe: bool = False) -> Optional[str]:
    """What the text output says ``--fix`` (with ``unsafe``: ``--fix --unsafe-fixes``) does for
    ``finding``: the safe fix, and with ``unsafe`` the class rewrite, which wins where the
    codemod takes the class and may decline it (only ``--fix`` runs it and says why)."""
    titles = {applicability: title for title, applicability in reversed(finding.fixes)}
    safe, rewrite = titles.get("safe"), titles.get("unsafe") if unsafe else None
    if safe and rewrite:
        return f"{safe}; --unsafe-fixes may instead: {rewrite}"
    if rewrite:
        return f"unsafe, may be declined: {rewrite}"
    return safe


def git_quoted(name: bytes, non_ascii: bool = False) -> bytes:
    """``name`` C-quoted as git quotes a path (``"a\\tb.py"``, octal escapes) when it holds a
    quote, a backslash or a control character, and with ``non_ascii`` any byte above 0x7F
    (git's ``core.quotePath``); else unchanged. The quotes say it is escaped, so the escapes
    can never be read as a name that holds those characters."""
    def octal(byte: int) -> bool:
        return byte < 0x20 or byte == 0x7F or (non_ascii and byte > 0x7F)

    if not any(octal(byte) or byte in (0x22, 0x5C) for byte in name):
        return name
    escapes = {0x22: b'\\"', 0x5C: b"\\\\", 0x09: b"\\t", 0x0A: b"\\n"}
    quoted = (escapes.get(byte) or (b"\\%03o" % byte if octal(byte) else bytes([byte]))
              for byte in name)
    return b'"' + b"".join(quoted) + b'"'


# What ends a line for ``str.splitlines`` beyond the C0 controls (NEL, LINE and PARAGRAPH
# SEPARATOR), and the C1 controls a terminal obeys (U+009B is CSI): no line may hold them raw.
LINE_BREAKERS = "\x80-\x9f\u2028\u2029"  # (a character class's body; finding.UNSHOWN's too)
LINE_BREAKING = re.compile(f"[{LINE_BREAKERS}]")


def text_path(path: str, utf8: bool = True) -> str:
    """A path for the text format: its raw bytes (kept as lone surrogates, which the CLI writes
    back ``surrogateescape``), git-quoted when a control character would break the line or,
    on a stdout that is not UTF-8 or for a name holding a character of ``LINE_BREAKING``,
    when it is not plain ASCII (``"\\303\\274.py"``), as git's ``core.quotePath`` quotes."""
    raw = os.fsencode(path)
    shown = git_quoted(raw, non_ascii=not utf8 or LINE_BREAKING.search(path) is not None)
    return path if shown == raw else os.fsdecode(shown)


def takes_utf8(stream) -> bool:
    """Whether ``stream`` (stdout, stderr) encodes UTF-8."""
    encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
    return encoding in ("utf8", "utf")


def message_path(path: str) -> str:
    """A file's name inside a one-line message on stderr: as ``text_path`` shows it, and with
    every non-ASCII byte an octal escape when the name is not UTF-8 or stderr is not (stderr
    writes no raw bytes back, and its backslash escapes would read as a name). A name never
    splits the line, never reaches a terminal as a control sequence (ESC, CR) and never reads
    as another name."""
    raw = os.fsencode(path)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return git_quoted(raw, non_ascii=True).decode("ascii")
    return text_path(path, takes_utf8(sys.stderr))


def render_text(findings: list, unsafe: bool = False, utf8: bool = True) -> str:
    """flake8's shape, ``[*]`` on what ``--fix`` fixes (with ``unsafe``: also the unsafe
    fixes), then the fix's title; the path as ``text_path`` shows it on a stdout that is
    ``utf8`` or not."""
    lines = []
    for path, f in findings:
        path = text_path(path, utf8)
        title = applied_fix(f, unsafe)
        mark = " [*]" if f.fixable or title else ""
        fix = f" (fix: {title})" if title else ""
        lines.append(f"{path}:{f.line}:{f.col + 1}: {f.code}{mark} {f.message}{fix}")
    return "".join(line + "\n" for line in lines)


def _fixes(finding) -> list:
    return [{"title": title, "applicability": applicability}
            for title, applicability in finding.fixes]


def render_json(findings: list) -> str:
    rows = [
        {"path": valid_unicode(path), "line": f.line, "column": f.col + 1, "code": f.code,
         "message": valid_unicode(f.message), "fixable": f.fixable, "fixes": _fixes(f)}
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
        shown = valid_unicode(path).replace(os.sep, "/")
        props = (f"file={_escape_property(shown)},line={f.line},"
                 f"col={f.col + 1},title={_escape_property(f.code)}")
        lines.append(f"::error {props}::{_escape_data(f'{f.code} {f.message}')}")
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------- sarif

def _artifact_location(path: str, root: Path) -> dict:
    """A relative, forward-slash URI under %SRCROOT% when possible, else an absolute file URI.

    URIs are built from the file name's bytes (RFC 3986 percent-encoding), so a name that is
    not UTF-8 still gets an exact, valid URI.
    """
    from urllib.parse import quote  # SARIF only: a text report never needs it

    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": "file://" + quote(os.fsencode(absolute.as_posix()))}
    return {"uri": quote(os.fsencode(relative.as_posix())), "uriBaseId": "%SRCROOT%"}


def _sarif_rule(doc: "RuleDoc") -> dict:
    full = doc.doc
    return {
        "id": doc.code,
        "name": doc.name,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": full},
        "help": {"text": f"{full}\n\nSee `poolguard explain {doc.code}`."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["correctness", "sglang", "kv-cache"]},
    }


def render_sarif(findings: list, *, version: str = "0", root: Optional[Path] = None,
                 fixes: Optional[dict] = None) -> str:
    """SARIF 2.1.0; ``fixes`` maps ``(path, line, col, code)`` to a result's SARIF ``fixes``
    (``lint_rules.fixes.preview.sarif_fixes``)."""
    from urllib.parse import quote  # SARIF only: a text report never needs it

    from lint_rules.rules import rule_docs

    root = Path(os.path.abspath(root or os.getcwd()))
    docs = rule_docs()
    index = {doc.code: i for i, doc in enumerate(docs)}
    results = []
    for path, f in findings:
        result = {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": valid_unicode(f"{f.code} {f.message}")},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact_location(path, root),
                "region": {"startLine": f.line, "startColumn": f.col + 1},
            }}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        shown = (fixes or {}).get((path, f.line, f.col, f.code))
        if shown:
            location = _artifact_location(path, root)
            result["fixes"] = [
                {**fix, "artifactChanges": [{**change, "artifactLocation": location}
                                            for change in fix["artifactChanges"]]}
                for fix in shown
            ]
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
            # columns count characters (code points), not the UTF-16 units SARIF may assume
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {
                "uri": "file://" + quote(os.fsencode(root.as_posix())).rstrip("/") + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def render(findings: list, fmt: str, *, version: str = "0", unsafe: bool = False,
           fixes: Optional[dict] = None, utf8: bool = True) -> str:
    """Dispatch on ``fmt`` (one of ``FORMATS``); ``unsafe``: ``--unsafe-fixes`` was given;
    ``fixes``: SARIF fix objects per finding; ``utf8``: stdout takes UTF-8 (text paths)."""
    if fmt == "json":
        return render_json(findings)
    if fmt == "sarif":
        return render_sarif(findings, version=version, fixes=fixes)
    if fmt == "github":
        return render_github(findings)
    return render_text(findings, unsafe, utf8)


# ---------------------------------------------------------------- explain

def render_explain(doc: "RuleDoc") -> str:
    """A rule's documentation with its examples, for ``poolguard explain``."""
    out = [f"{doc.code} ({doc.name})", ""]
    if doc.doc:
        out += [doc.doc, ""]
    for number, example in enumerate(doc.valid, 1):
        out += [f"Valid example {number} (no finding):", _indent(example.source), ""]
    for number, example in enumerate(doc.invalid, 1):
        note = " (flagged lines marked >)" if example.lines else " (flagged)"
        out += [f"Invalid example {number}{note}:", _indent(example.source, example.lines), ""]
        if example.fixed:
            out += ["  after `poolguard lint --fix`:", _indent(example.fixed), ""]
    return "\n".join(out).rstrip() + "\n"


def _indent(source: str, marked: tuple = ()) -> str:
    # dedent, not cleandoc: cleandoc treats the first line apart and would flatten class bodies
    lines = textwrap.dedent(source).rstrip("\n").splitlines()
    return "\n".join(
        ("  > " if number in marked else "    ") + line if line.strip() else ""
        for number, line in enumerate(lines, 1)
    )
