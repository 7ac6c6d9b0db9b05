"""Turning the lint on in a tree that already has findings: ``--add-noqa`` and baselines.

``--add-noqa`` appends ``# noqa: KVP00x`` where flake8 reads it (``lint_rules.noqa``): at the
end of the flagged line's noqa range, the one place where a comment can never change the code,
merged into the ``noqa`` comment already there. The engine honours exactly what flake8
honours, so after ``--add-noqa`` lint, ``--diff`` and ``--fix`` all leave those lines alone,
and adding again changes nothing.

A baseline lists known findings by code, path and a fingerprint of the flagged line's
stripped text plus its occurrence among equal lines: edits elsewhere in the file (lines moving
up or down) do not resurrect them, a new finding or a changed flagged line is reported.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Optional

from lint_rules.files import WriteRefused, read_regular_file, write_whole
from lint_rules.noqa import NOQA_INLINE_REGEXP, NoqaMap, listed_codes
from lint_rules.output import message_path, valid_unicode

BASELINE_FORMAT = "poolguard-baseline"
BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024  # ~300,000 findings; anything larger is not a baseline
PHYSICAL_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class AdoptionError(Exception):
    """A baseline that cannot be read or written; the CLI prints it and exits 2."""


def physical_lines(text: str) -> list:
    """Lines with their endings, split where Python splits them (not on form feeds)."""
    return PHYSICAL_LINE_RE.findall(text)


def read_text(path: str) -> tuple:
    """``(text, encoding, raw bytes)`` of a source file, read and decoded as the runner reads
    and decodes it: a file that became a FIFO, a device or a folder since the lint read it is
    an ``OSError``, never opened to block the run (nor one grown past the lint's limit)."""
    from lint_rules.runner import MAX_SOURCE_BYTES, _decode

    data = read_regular_file(path, MAX_SOURCE_BYTES)
    text, encoding = _decode(data)
    return text, encoding, data


# ---------------------------------------------------------------- --add-noqa

class NoqaRefused(Exception):
    """No comment can suppress this finding where flake8 reads it; the message says why."""


def add_noqa(path: str, codes_by_line: dict) -> tuple:
    """Add ``# noqa`` codes for ``{line: {codes}}`` to ``path``; returns ``(lines changed,
    [why a line could not be given one])``.

    Each comment goes where flake8 reads it: at the end of the flagged line's noqa range, as
    a new comment or merged into the ``noqa`` comment already there. Only comments change:
    the file must tokenize, and its ``ast`` must be the same before and after, or nothing is
    written. Raises ``OSError``/``WriteRefused``/``NoqaRefused``.
    """
    from lint_rules.files import digest_bytes, write_fix
    from lint_rules.runner import encode_edit

    text, encoding, data = read_text(path)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines = physical_lines(text[len(bom):])
    bodies = [line.rstrip("\r\n") for line in lines]
    noqa = NoqaMap(bodies)
    if not noqa.tokenizes:
        raise NoqaRefused("Python's tokenizer rejects the file; add the noqa by hand")
    wanted: dict = {}
    for line, codes in codes_by_line.items():
        if not all(noqa.covers(line, code) for code in codes):
            wanted.setdefault(noqa.range_of(line), set()).update(codes)
    changed, refused = 0, []
    for (first, last), codes in sorted(wanted.items()):
        try:
            body = _with_noqa(noqa, first, last, codes)
        except NoqaRefused as exc:
            refused.append(str(exc))
            continue
        if body != bodies[last - 1]:
            lines[last - 1] = body + lines[last - 1][len(bodies[last - 1]):]
            changed += 1
    if changed:
        new_text = bom + "".join(lines)
        if not _same_code(text[len(bom):], new_text[len(bom):]):
            raise NoqaRefused("a noqa comment here would change the code; add it by hand")
        digest = digest_bytes(data)
        write_fix(path, digest, encode_edit(text, encoding, digest, new_text)[1])
    return changed, refused


def _with_noqa(noqa: NoqaMap, first: int, last: int, codes: set) -> str:
    """Line ``last`` with a ``noqa`` that covers ``codes`` where flake8 looks (the first
    match in the range): merged into that comment, or a new comment when there is none."""
    body = noqa.lines[last - 1]
    text = noqa.text_for(last)
    match = NOQA_INLINE_REGEXP.search(text)
    if match is None:
        return f"{body}  # noqa: {', '.join(sorted(codes))}"
    comment = noqa.comment_on(last)
    local = NOQA_INLINE_REGEXP.search(body, comment.start[1]) if comment else None
    if local is None or match.start() != len(text) - len(body) + local.start():
        raise NoqaRefused(f"line {last}: flake8 reads the '# noqa' inside a string first, so "
                          "no comment can suppress it; add the noqa by hand")
    listed = listed_codes(local)
    missing = sorted(code for code in codes if not (code in listed or code.startswith(listed)))
    end = local.end("codes")
    head = body[:end].rstrip(", \t")  # the listed codes, then what followed them
    return f"{head}, {', '.join(missing)}{body[len(head):end]}{body[end:]}"


def _same_code(before: str, after: str) -> bool:
    from lint_rules.engine import _deep  # ast.dump recurses: as deep as the lint's analysis

    try:
        return _deep(lambda: ast.dump(ast.parse(before)) == ast.dump(ast.parse(after)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def add_noqa_everywhere(findings: list) -> tuple:
    """``(lines changed, files changed, error lines)``; a KVP900 file is an error line."""
    by_file: dict = {}
    errors = []
    for path, finding in findings:
        if finding.code != "KVP900":
            by_file.setdefault(path, {}).setdefault(finding.line, set()).add(finding.code)
        else:  # the rules never saw this file: a noqa would hide nothing it has
            errors.append(f"{message_path(path)}: cannot add noqa: the file was not checked ("
                          f"{finding.code} {finding.message})")
    lines = files = 0
    for path, codes_by_line in sorted(by_file.items()):
        try:
            changed, refused = add_noqa(path, codes_by_line)
            errors.extend(f"{message_path(path)}: cannot add noqa: {why}" for why in refused)
        except (OSError, WriteRefused, NoqaRefused, SyntaxError, UnicodeError,
                LookupError) as exc:
            errors.append(f"{message_path(path)}: cannot add noqa: "
                          f"{getattr(exc, 'strerror', None) or exc}")
            continue
        lines += changed
        files += bool(changed)
    return lines, files, errors


# ---------------------------------------------------------------- baselines

def fingerprint(line_text: str) -> str:
    stripped = valid_unicode(line_text.strip())
    return hashlib.blake2b(stripped.encode("utf-8"), digest_size=8).hexdigest()


def _keys(findings: list, root: Path, sources: Optional[dict] = None) -> list:
    """One ``(path, code, fingerprint, occurrence)`` per finding, in the findings' order; a
    path of ``sources`` (``{path: bytes}``: standard input, linted under that name) is read
    from there, never from the file of that name on disk."""
    texts = {path: _source_lines(data) for path, data in (sources or {}).items()}
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
        relative = os.path.relpath(os.path.realpath(path), root).replace(os.sep, "/")
        base = (valid_unicode(relative), finding.code, fingerprint(line))
        seen[base] += 1
        keys.append(((*base, seen[base]), (path, finding)))
    return keys


def _source_lines(data: bytes) -> list:
    from lint_rules.runner import _decode

    try:
        return physical_lines(_decode(data)[0])
    except (SyntaxError, UnicodeError, LookupError):
        return []


def _baseline_root(baseline: str) -> Path:
    """The real folder of the baseline file itself, every symlink resolved as each file's path
    is: a folder reached through a link (macOS ``/tmp``, CI workspaces) or a link to the file
    (written through to its target; ``/dev/stdin``) still matches the same rows."""
    return Path(os.path.dirname(os.path.realpath(baseline)))


def write_baseline(target: str, findings: list, sources: Optional[dict] = None) -> int:
    """Write every finding to ``target``; returns how many (``sources``: as ``_keys``)."""
    root = _baseline_root(target)
    rows = [{"path": key[0], "code": key[1], "fingerprint": key[2], "occurrence": key[3],
             "line": item[1].line, "message": valid_unicode(item[1].message)}
            for key, item in _keys(findings, root, sources)]
    payload = {"format": BASELINE_FORMAT, "version": BASELINE_VERSION, "findings": rows}
    if not _replaceable(target):  # `--write-baseline src/x.py`: never write over a source
        raise AdoptionError(f"{target} exists and is not a poolguard baseline: not overwritten "
                            "(remove it or name another file)")
    try:
        write_whole(target, (json.dumps(payload, indent=1) + "\n").encode("utf-8"))
    except (OSError, WriteRefused) as exc:
        raise AdoptionError(f"cannot write baseline {target}: "
                            f"{getattr(exc, 'strerror', None) or exc}")
    return len(rows)


def _replaceable(target: str) -> bool:
    """``target`` is absent, empty, not a regular file (``write_whole`` refuses that itself)
    or a baseline of any version (rewriting an old one is how it is updated)."""
    try:
        data = read_regular_file(target, MAX_BASELINE_BYTES)
    except OSError:
        return True
    try:
        return not data.strip() or json.loads(data).get("format") == BASELINE_FORMAT
    except (ValueError, RecursionError, AttributeError):
        return False


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
    version = payload.get("version")
    if type(version) is not int or version != BASELINE_VERSION:  # its fingerprints mean else
        raise AdoptionError(f"baseline {source} has format version {_shown(version)}; this "
                            f"poolguard reads version {BASELINE_VERSION}: write it again with "
                            "--write-baseline")
    rows = payload.get("findings")
    if not isinstance(rows, list):
        raise AdoptionError(f"baseline {source} has malformed findings (not a list)")
    for number, row in enumerate(rows, 1):
        wrong = _row_fault(row)
        if wrong:
            raise AdoptionError(f"baseline {source} has malformed findings (finding {number}: "
                                f"{wrong})")
    return {(row["path"], row["code"], row["fingerprint"], row["occurrence"]) for row in rows}


def _row_fault(row) -> str:
    """What is wrong with one row of a baseline's findings ("" when nothing is)."""
    if not isinstance(row, dict):
        return "not an object"
    for key in ("path", "code", "fingerprint"):
        if not isinstance(row.get(key), str):
            return f"{key} is not a string"
    occurrence = row.get("occurrence")  # JSON's true is Python's True, an int equal to 1
    if type(occurrence) is not int or occurrence < 1:
        return f"occurrence {_shown(occurrence)} is not a whole number from 1 up"
    return ""


def _shown(value) -> str:
    """A JSON value as the file spells it, cut short for an error line."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (ValueError, RecursionError):  # an int past str()'s digit limit, deep nesting
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def new_findings(findings: list, known: set, baseline_path: str,
                 sources: Optional[dict] = None) -> list:
    """The findings a baseline does not list (``sources``: as ``_keys``)."""
    root = _baseline_root(baseline_path)
    return [item for key, item in _keys(findings, root, sources) if key not in known]


def baseline_summary(count: int, target: str) -> str:
    return f"wrote {count} finding{'' if count == 1 else 's'} to baseline {target}"
