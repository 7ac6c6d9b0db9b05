"""Every ``--diff`` applies with ``git apply`` and gives exactly what ``--fix`` writes (issue 16,
class 3), whatever the file's bytes: line separators that are not newlines to git (U+2028,
U+0085, form feed), CR-only and CRLF newlines, no final newline, a BOM, a latin-1 file; and
whatever the file's name (a tab, a newline, a quote: C-quoted in the header as git quotes it).
"""
from __future__ import annotations

import codecs
import shutil
import subprocess

import pytest
from clirun import poolguard
from samples import GATED

GATE = "        if self.use_sliding_window_kv_pool:"
ODD = GATED.replace(GATE, GATE + "  # a\u2028b\x85c\x0cd")
FORMS = {
    "separators.py": ODD.encode(),
    "separator_lines.py": ('x = "1\u2028"\n\x0c\n# \x85\n' + GATED).encode(),
    "cr_only.py": GATED.replace("\n", "\r").encode(),
    "crlf.py": GATED.replace("\n", "\r\n").encode(),
    "no_final_newline.py": GATED.rstrip("\n").encode(),
    "cr_only_no_final.py": GATED.rstrip("\n").replace("\n", "\r").encode(),
    "bom.py": codecs.BOM_UTF8 + ODD.encode(),
    "latin1.py": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + GATED.encode(),
    "mixed.py": GATED.replace("\n", "\r", 3).encode(),
}


def _applied_and_fixed(tmp_path, files: dict) -> tuple:
    """Two copies of ``files`` (name -> bytes): ``--diff`` applied to one with ``git apply``
    (checked first), ``--fix`` run on the other; the two folders and the diff."""
    applied, fixed = tmp_path / "applied", tmp_path / "fixed"
    for tree in (applied, fixed):
        tree.mkdir()
        for name, data in files.items():
            (tree / name).write_bytes(data)
    subprocess.run(["git", "init", "-q", str(applied)], check=True)
    diff = poolguard("lint", "--isolated", "--no-cache", "--diff", ".", cwd=applied, expect=1,
                     text=False).stdout
    (tmp_path / "fix.patch").write_bytes(diff)
    check = subprocess.run(["git", "apply", "--check", "--verbose", str(tmp_path / "fix.patch")],
                           cwd=applied, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=applied, check=True)
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=fixed)
    return applied, fixed, diff


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_every_diff_applies_with_git_and_equals_the_fix(tmp_path):
    applied, fixed, diff = _applied_and_fixed(tmp_path, FORMS)
    assert diff.count(b"\n--- a/") + diff.startswith(b"--- a/") == len(FORMS)
    for name, before in FORMS.items():
        after = (fixed / name).read_bytes()
        assert after != before, f"{name}: --fix changed nothing"
        assert (applied / name).read_bytes() == after, name
    assert poolguard("lint", "--isolated", "--no-cache", "--diff", ".", cwd=applied,
                     text=False).stdout == b""  # nothing left to diff once applied


NAMES = ["tab\there.py", "new\nline.py", 'q"uote.py', "back\\slash.py", "bell\x07.py",
         "sp ace.py", "\u00fcn\u00ef.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_diff_of_files_with_odd_names_applies_with_git(tmp_path):
    # git reads a tab in a "--- a/name" header as the end of the name: such names (and quotes,
    # backslashes, control characters) are C-quoted as git itself writes them
    applied, fixed, _ = _applied_and_fixed(tmp_path, dict.fromkeys(NAMES, GATED.encode()))
    for name in NAMES:
        assert (applied / name).read_text() == (fixed / name).read_text() != GATED, repr(name)
