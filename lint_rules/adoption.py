"""Turning the lint on in a tree that already has findings: ``--add-noqa`` and baselines.

``--add-noqa`` appends ``# noqa: KVP00x`` where flake8 reads it. flake8 looks for a ``noqa``
in the whole token range of a line (a multi-line string or a backslash-continued statement
counts as one), so the comment goes at the end of that range, the one place where a comment
can never change the code; existing ``noqa`` codes are kept and merged. The CLI honours a
``noqa`` anywhere in that range too, so adding is idempotent.

A baseline lists known findings by code, path and a fingerprint of the flagged line's
stripped text plus its occurrence among equal lines: edits elsewhere in the file (lines moving
up or down) do not resurrect them, a new finding or a changed flagged line is reported.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tokenize
from collections import Counter
from pathlib import Path

from lint_rules.engine import is_suppressed, suppressed_codes
from lint_rules.files import WriteRefused, read_regular_file, write_whole
from lint_rules.output import valid_unicode

BASELINE_FORMAT = "poolguard-baseline"
BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024  # ~300,000 findings; anything larger is not a baseline
PHYSICAL_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class AdoptionError(Exception):
    """A baseline that cannot be read or written; the CLI prints it and exits 2."""


def physical_lines(text: str) -> list:
    """Lines with their endings, split where Python splits them (not on form feeds)."""
    return PHYSICAL_LINE_RE.findall(text)


def noqa_ranges(lines: list) -> dict:
    """Physical line number → last line of its flake8 ``noqa`` range (empty when untokenizable)."""
    mapping: dict = {}
    first, last = None, 0
    feed = iter(lines)
    try:
        for token in tokenize.generate_tokens(lambda: next(feed, "")):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first = token.start[0] if first is None else min(first, token.start[0])
            last = max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                mapping.update(dict.fromkeys(range(first, last + 1), last))
                first, last = None, 0
    except (tokenize.TokenError, SyntaxError, IndentationError, RecursionError):
        return {}
    return mapping


def read_text(path: str) -> tuple:
    """``(text, encoding, raw bytes)`` of a source file, decoded as the runner decodes it."""
    from lint_rules.runner import _decode

    with open(path, "rb") as handle:
        data = handle.read()
    text, encoding = _decode(data)
    return text, encoding, data


def drop_range_suppressed(findings: list) -> list:
    """Remove findings whose ``noqa`` sits elsewhere in their flake8 range (flake8 honours it;
    the engine itself reads only the flagged line)."""
    by_path: dict = {}
    for path, finding in findings:
        by_path.setdefault(path, []).append(finding)
    kept = []
    for path, found in by_path.items():
        lines, mapping = _ranges_of(path, found)
        for finding in found:
            target = mapping.get(finding.line, finding.line)
            if target != finding.line and 0 < target <= len(lines) and is_suppressed(
                    lines[target - 1], finding.code):
                continue
            kept.append((path, finding))
    return kept


def _ranges_of(path: str, found: list) -> tuple:
    """Lines and ``noqa`` ranges of ``path``, only when a ``noqa`` on some line other than a
    flagged one could cover a finding (tokenizing is the slow part; it is rarely needed)."""
    try:
        text = read_text(path)[0]
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return [], {}
    if "noqa" not in text.lower():
        return [], {}
    lines = physical_lines(text)
    flagged = {finding.line for finding in found}
    codes = {finding.code for finding in found}
    if not any(number not in flagged and "noqa" in line.lower()
               and any(is_suppressed(line, code) for code in codes)
               for number, line in enumerate(lines, 1)):
        return lines, {}
    return lines, noqa_ranges(lines)


# ---------------------------------------------------------------- --add-noqa

def add_noqa(path: str, codes_by_line: dict) -> int:
    """Append ``# noqa`` codes for ``{line: {codes}}`` to ``path``; returns lines changed.

    Raises ``OSError``/``WriteRefused`` when the file cannot be read or written back.
    """
    from lint_rules.files import digest_bytes
    from lint_rules.files import write_fix

    text, encoding, data = read_text(path)
    lines = physical_lines(text)
    mapping = noqa_ranges(lines)
    wanted: dict = {}
    for line, codes in codes_by_line.items():
        target = mapping.get(line)
        if target is not None:
            wanted.setdefault(target, set()).update(codes)
    changed = 0
    for target, codes in wanted.items():
        new_line = with_noqa(lines[target - 1], codes)
        if new_line != lines[target - 1]:
            lines[target - 1] = new_line
            changed += 1
    if changed:
        write_fix(path, digest_bytes(data), "".join(lines).encode(encoding))
    return changed


def with_noqa(line: str, codes: set) -> str:
    """``line`` with a ``noqa`` that covers ``codes``, merged into one it already has."""
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    existing = suppressed_codes(body)
    if existing == ():  # a bare noqa covers everything already
        return line
    if existing is None:
        return f"{body}  # noqa: {', '.join(sorted(codes))}{ending}"
    missing = sorted(code for code in codes if not code.startswith(existing))
    if not missing:
        return line
    from lint_rules.engine import NOQA_RE

    match = NOQA_RE.search(body)
    listed = match.group("codes").rstrip(", \t")
    merged = f"# noqa: {listed}, {', '.join(missing)}"
    tail = match.group(0)[len(match.group(0).rstrip(", \t")):]
    return body[:match.start()] + merged + tail + body[match.end():] + ending


def add_noqa_everywhere(findings: list) -> tuple:
    """``(lines changed, files changed, error lines)`` for every finding except KVP900."""
    by_file: dict = {}
    for path, finding in findings:
        if finding.code != "KVP900":
            by_file.setdefault(path, {}).setdefault(finding.line, set()).add(finding.code)
    from lint_rules.files import WriteRefused

    lines = files = 0
    errors = []
    for path, codes_by_line in sorted(by_file.items()):
        try:
            changed = add_noqa(path, codes_by_line)
        except (OSError, WriteRefused, SyntaxError, UnicodeError, LookupError) as exc:
            errors.append(f"{path}: cannot add noqa: {getattr(exc, 'strerror', None) or exc}")
            continue
        lines += changed
        files += bool(changed)
    return lines, files, errors


# ---------------------------------------------------------------- baselines

def fingerprint(line_text: str) -> str:
    stripped = valid_unicode(line_text.strip())
    return hashlib.blake2b(stripped.encode("utf-8"), digest_size=8).hexdigest()


def _keys(findings: list, root: Path) -> list:
    """One ``(path, code, fingerprint, occurrence)`` per finding, in the findings' order."""
    texts: dict = {}
    seen: Counter = Counter()
    keys = []
    ordered = sorted(findings, key=lambda item: (item[0], item[1].line, item[1].col,
                                                 item[1].code))
    for path, finding in ordered:
        if path not in texts:
            try:
                texts[path] = physical_lines(read_text(path)[0])
            except (OSError, SyntaxError, UnicodeError, LookupError):
                texts[path] = []
        lines = texts[path]
        line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        relative = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
        base = (valid_unicode(relative), finding.code, fingerprint(line))
        seen[base] += 1
        keys.append(((*base, seen[base]), (path, finding)))
    return keys


def write_baseline(target: str, findings: list) -> int:
    """Write every finding to ``target``; returns how many."""
    root = Path(os.path.abspath(target)).parent
    rows = [{"path": key[0], "code": key[1], "fingerprint": key[2], "occurrence": key[3],
             "line": item[1].line, "message": valid_unicode(item[1].message)}
            for key, item in _keys(findings, root)]
    payload = {"format": BASELINE_FORMAT, "version": BASELINE_VERSION, "findings": rows}
    try:
        write_whole(target, (json.dumps(payload, indent=1) + "\n").encode("utf-8"))
    except (OSError, WriteRefused) as exc:
        raise AdoptionError(f"cannot write baseline {target}: "
                            f"{getattr(exc, 'strerror', None) or exc}")
    return len(rows)


def read_baseline(source: str) -> set:
    """The known-finding keys of a baseline file; a bad file is an ``AdoptionError``."""
    try:
        payload = json.loads(read_regular_file(source, MAX_BASELINE_BYTES))
    except OSError as exc:
        raise AdoptionError(f"cannot read baseline {source}: {exc.strerror or exc}")
    except (ValueError, RecursionError):
        raise AdoptionError(f"baseline {source} is not valid JSON")
    if not isinstance(payload, dict) or payload.get("format") != BASELINE_FORMAT:
        raise AdoptionError(f"{source} is not a poolguard baseline (write one with "
                            "--write-baseline)")
    rows = payload.get("findings")
    if not isinstance(rows, list) or not all(_baseline_row(row) for row in rows):
        raise AdoptionError(f"baseline {source} has malformed findings")
    return {(row["path"], row["code"], row["fingerprint"], row["occurrence"]) for row in rows}


def _baseline_row(row) -> bool:
    return (isinstance(row, dict) and all(isinstance(row.get(k), str)
                                          for k in ("path", "code", "fingerprint"))
            and isinstance(row.get("occurrence"), int))


def new_findings(findings: list, known: set, baseline_path: str) -> list:
    """The findings a baseline does not list."""
    root = Path(os.path.abspath(baseline_path)).parent
    return [item for key, item in _keys(findings, root) if key not in known]


def baseline_summary(count: int, target: str) -> str:
    return f"poolguard: wrote {count} finding{'' if count == 1 else 's'} to baseline {target}\n"
