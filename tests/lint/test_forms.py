"""Hand-written backends in ``tests/lint/forms/``: the findings of each file equal its markers.

A line ending in ``# expect: KVP001`` (or ``# expect: KVP001,KVP003``) must carry exactly those
codes; every other line must carry none, so misses and false alarms both fail. The material was
written from the bug class (issue 13), not from the lint's code. One run of the real
``poolguard lint`` CLI covers every single file and every ``pkg_*`` directory (a package is
analysed as a whole); its JSON rows are mapped back to files by path.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

FORMS = Path(__file__).resolve().parent / "forms"
REPO = FORMS.parents[2]
MARKER = re.compile(r"#\s*expect:\s*(KVP\d{3}(?:\s*,\s*KVP\d{3})*)\s*$")


def _sources() -> list[Path]:
    """Every ``.py`` under the folder: single files and the modules of each ``pkg_*``."""
    return sorted(FORMS.rglob("*.py"))


def _targets() -> list[Path]:
    """What the CLI is given: single files by name, packages by directory."""
    files = sorted(FORMS.glob("*.py"))
    packages = sorted(path for path in FORMS.glob("pkg_*") if path.is_dir())
    return files + packages


def expected_findings(path: Path) -> set[tuple[int, str]]:
    """``(line, code)`` for every marker in ``path``."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found |= {(number, code.strip()) for code in match.group(1).split(",")}
    return found


@pytest.fixture(scope="module")
def actual_findings() -> dict[Path, set[tuple[int, str]]]:
    """One CLI run over everything; ``(line, code)`` per resolved file path."""
    command = [sys.executable, "-m", "lint_rules.cli", "lint", "--format", "json", "--no-cache",
               "--isolated", "--extend-select", "KVP004", *map(str, _targets())]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), (done.returncode, done.stderr)
    rows: dict[Path, set[tuple[int, str]]] = {}
    twice, seen = [], set()  # one decision: never two findings at one place
    for row in json.loads(done.stdout):
        path = (REPO / row["path"]).resolve()
        place = (row["path"], row["line"], row["column"], row["code"])
        if place in seen and row["code"] == "KVP003":  # (a loop may store several attributes
            # at one place; a decision is one finding whatever it reads)
            twice.append(place)
        seen.add(place)
        rows.setdefault(path, set()).add((row["line"], row["code"]))
    rows[TWICE] = set(twice)
    return rows


TWICE = Path("<twice>")


def test_no_place_carries_one_code_twice(actual_findings):
    """A helper the backend hands itself to is placed at the call: its own read of a flag and
    the call answering from it are one decision there (blind set28: two KVP003 on one line)."""
    assert actual_findings[TWICE] == set()


def test_material_is_there():
    """The folder holds what the brief asks for (guards against an empty glob passing)."""
    stale = [path for path in _sources() if expected_findings(path)]
    markers = sum(len(expected_findings(path)) for path in stale)
    assert len(stale) >= 10 and markers >= 60, (len(stale), markers)
    assert any(path.is_dir() for path in FORMS.glob("pkg_valid_*"))


@pytest.mark.parametrize("path", [
    path for path in _sources()
    if path.name.startswith("valid_") or path.parent.name.startswith("pkg_valid_")
], ids=lambda path: str(path.relative_to(FORMS)))
def test_valid_material_has_no_markers(path):
    assert not expected_findings(path), "valid_* files and pkg_valid_* packages carry no marker"


def _diff(path: Path, expected: set, actual: set) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for number, code in sorted(expected - actual):
        out.append(f"  missed       {code} line {number}: {lines[number - 1].strip()}")
    for number, code in sorted(actual - expected):
        text = lines[number - 1].strip() if 0 < number <= len(lines) else "?"
        out.append(f"  false alarm  {code} line {number}: {text}")
    return "\n".join(out)


@pytest.mark.parametrize("path", _sources(), ids=lambda path: str(path.relative_to(FORMS)))
def test_findings_equal_markers(path, actual_findings):
    expected = expected_findings(path)
    actual = actual_findings.get(path.resolve(), set())
    assert actual == expected, f"{path.relative_to(FORMS)}:\n" + _diff(path, expected, actual)
