"""Each fix a finding offers, applied alone, as the replacements SARIF's ``fixes`` carry.

Only ``--format sarif`` asks for this, and only for files whose findings offer a fix: each
offered fix is applied by itself (the libcst transform of ``apply``) to the file as it is on
disk, and the difference becomes whole-line replacements (1-based lines; a deleted region ends
at column 1 of the line after it, an insertion is an empty region).
"""
from __future__ import annotations

import difflib
from typing import Dict, List, Optional

from lint_rules.fixes import LINE_BREAK_RE, Fix


def sarif_fix(source: str, fix: Fix, options) -> Optional[dict]:
    """SARIF ``fix`` object for ``fix`` applied alone to ``source``; None if it applies to
    nothing (the resolver declined, or libcst cannot take the file)."""
    from lint_rules.engine import _deep
    from lint_rules.fixes.apply import apply_fixes  # libcst: only for files with fixes

    try:  # libcst recurses once per operand: as deep as the analysis, under the same limit
        new, _ = _deep(apply_fixes, source, [fix], options)
    except RecursionError:
        return None
    if new is None or new == source:
        return None
    return {"description": {"text": f"{fix.title} ({fix.applicability})"},
            "artifactChanges": [{"replacements": replacements(source, new)}]}


def replacements(old: str, new: str) -> List[dict]:
    """Whole-line SARIF replacements turning ``old`` into ``new``."""
    before, after = _lines(old), _lines(new)
    found = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            found.append({"deletedRegion": _region(before, i1, i2),
                          "insertedContent": {"text": "".join(after[j1:j2])}})
    return found


def _lines(text: str) -> List[str]:
    """``text``'s physical lines with their ends, as Python and SARIF viewers count them (a
    form feed or U+2028 inside a line ends no line here, as ``str.splitlines`` would)."""
    found, start = [], 0
    for match in LINE_BREAK_RE.finditer(text):
        found.append(text[start:match.end()])
        start = match.end()
    if start < len(text):
        found.append(text[start:])
    return found


def _region(lines: List[str], first: int, end: int) -> Dict[str, int]:
    """Lines ``first``..``end`` (0-based, end exclusive) as a region; past the last line it
    ends after that line's last character."""
    def point(index: int) -> tuple:
        if index < len(lines):
            return index + 1, 1
        return max(len(lines), 1), len(lines[-1]) + 1 if lines else 1

    (start_line, start_col), (end_line, end_col) = point(first), point(end)
    return {"startLine": start_line, "startColumn": start_col, "endLine": end_line,
            "endColumn": end_col}


def sarif_fixes(findings: list, config, sources: Optional[dict] = None) -> Dict[tuple, list]:
    """``(path, line, col, code)`` -> SARIF ``fixes`` for every finding that offers a fix,
    each fix computed once per file (a class rewrite serves all of its findings); ``sources``
    maps a path to the bytes that were linted when they are not the file's (stdin)."""
    from lint_rules.engine import offered_fixes

    by_path: Dict[str, list] = {}
    for path, finding in findings:
        if finding.fixes:
            by_path.setdefault(path, []).append(finding)
    found: Dict[tuple, list] = {}
    for path, wanted in by_path.items():
        source = _read(path, (sources or {}).get(path))
        if source is None:
            continue
        source, offered = offered_fixes(source, codes=config.codes_for(path),
                                        options=config.options,
                                        honor_noqa=not config.disable_noqa)
        done: Dict[Fix, Optional[dict]] = {}
        for finding in wanted:
            fixes = offered.get((finding.line, finding.col, finding.code), ())
            for fix in fixes:
                if fix not in done:
                    done[fix] = sarif_fix(source, fix, config.options)
            rows = [done[fix] for fix in fixes if done[fix] is not None]
            if rows:
                found[(path, finding.line, finding.col, finding.code)] = rows
    return found


def _read(path: str, data: Optional[bytes] = None) -> Optional[str]:
    import io
    import tokenize

    from lint_rules.files import read_regular_file
    from lint_rules.runner import MAX_SOURCE_BYTES

    try:
        if data is None:  # never opened blocking: a FIFO swapped in since the lint would hang
            data = read_regular_file(path, MAX_SOURCE_BYTES)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (OSError, SyntaxError, UnicodeError, LookupError):
        return None  # it changed or went since the lint: no fix to show
