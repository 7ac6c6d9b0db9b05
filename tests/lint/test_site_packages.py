"""The lint never crashes on real code: every ``*.py`` of this interpreter's site-packages.

In tox that is the test environment with torch, transformers and SGLang installed — many
thousands of files of every Python style. The text pre-filter keeps this fast: only the few
files that could hold an attention backend are parsed with libcst.
"""
from __future__ import annotations

import sysconfig
import tokenize
from pathlib import Path

from lint_rules.engine import ALL_CODES, lint_source


def site_packages_files() -> list[Path]:
    roots = {Path(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")}
    return sorted({path for root in roots if root.is_dir() for path in root.rglob("*.py")})


def read_source(path: Path) -> str | None:
    """Decoded source, or None for a file Python itself could not decode (not our concern)."""
    try:
        with tokenize.open(path) as handle:
            return handle.read()
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None


def lint_problem(source: str) -> str | None:
    """What went wrong linting ``source`` with every code on, or None."""
    try:
        findings = lint_source(source, codes=ALL_CODES)
    except Exception as error:  # the point of the test: report any crash, whatever its type
        return f"{type(error).__name__}: {error}"
    line_count = source.count("\n") + 1
    for finding in findings:
        if finding.code not in ALL_CODES or not 1 <= finding.line <= line_count:
            return f"malformed finding {finding}"
    return None


def test_lint_never_crashes_on_site_packages():
    files = site_packages_files()
    assert len(files) > 1000, "expected a full test environment (torch, sglang, ...)"
    problems = []
    for path in files:
        source = read_source(path)
        problem = None if source is None else lint_problem(source)
        if problem:
            problems.append(f"{path}: {problem}")
    assert not problems, f"{len(problems)} files broke the lint, e.g. {problems[:10]}"
