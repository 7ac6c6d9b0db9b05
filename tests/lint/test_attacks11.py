"""An eleventh hostile round on the CLI, the flake8 plugin and the guard's switches (attack11):
what the earlier rounds left, through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import subprocess

import pytest
from clirun import poolguard, write
from samples import GATED


@pytest.mark.parametrize("cwd, named, stdin", [
    ("here", "../other/b.py", False), ("here", "../here/../other/b.py", False),
    ("other/deeper", "..", False), ("here", "../other/b.py", True), ("other", "./b.py", True),
])
def test_a_diff_of_a_file_named_through_dots_applies(tmp_path, cwd, named, stdin):
    # the header read a/../other/b.py (a/./b.py for stdin named so): git apply said
    # 'invalid path' from every folder and patch -p1 found no file
    write(tmp_path, {"other/b.py": GATED, "here/.keep": "", "other/deeper/.keep": ""})
    args = ("--stdin-filename", named, "-") if stdin else (named,)
    with open(tmp_path / "other" / "b.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", "--diff", *args,
                         cwd=tmp_path / cwd, expect=1, stdin=source if stdin else None)
    header = done.stdout.splitlines()[0]
    assert "/../" not in header and "/./" not in header, header
    absolute = header == f"--- a/{tmp_path.relative_to('/')}/other/b.py"
    assert absolute or header == "--- a/b.py", header
    (tmp_path / "p.diff").write_text(done.stdout)
    applied = subprocess.run(["git", "apply", str(tmp_path / "p.diff")],
                             cwd="/" if absolute else tmp_path / cwd,
                             capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, (header, applied.stderr)
    assert "if self._swa_kv_pool is not None:" in (tmp_path / "other" / "b.py").read_text()
