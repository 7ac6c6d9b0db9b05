"""``per-file-ignores`` through the real CLI: the codes each file keeps, for every shape of
pattern flake8 takes (a directory, a basename, a ``./`` prefix, an absolute path, a backslash,
brackets, two patterns on one file: the longer applies), whichever directory the tree is linted
from and by whichever name (``RunConfig.codes_for`` rules out most files with one compiled test
first)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clirun import STALE, poolguard, write
from samples import GATED

BOTH = STALE + "\n\n" + GATED.replace("DemoAttnBackend", "OtherAttnBackend")  # KVP001, KVP003
IGNORED = {  # file -> the code prefixes its patterns ignore
    "legacy/a.py": ("KVP001",),
    "legacy/sub/b.py": ("KVP003",),  # two patterns: the longer alone applies, as in flake8
    "pkg/m_test.py": ("KVP0",),
    "pkg/m.py": ("KVP003",),
    "pkg/n_1.py": ("KVP001",),
    "abs/c.py": ("KVP003",),
    "win\\x.py": ("KVP001",),  # a backslash in a POSIX file name is a plain character
    "legacy2/d.py": (),  # "legacy2\*" has no slash: a basename pattern, which d.py is not
    "keep/e.py": (),
    "keep/legacy.py": (),  # "legacy/*" is a path pattern: never a basename match
}


def _config(root: Path) -> str:
    return ("[flake8]\nper-file-ignores =\n"
            "    legacy/*: KVP001\n"
            "    legacy/sub/*: KVP003\n"
            "    *_test.py: KVP0\n"
            "    ./pkg/m.py: KVP003\n"
            "    pkg/[mn]_[0-9].py: KVP001, E501\n"
            f"    {root}/abs/*.py: KVP003\n"
            "    win\\x.py: KVP001\n"
            "    legacy2\\*: KVP\n"
            "    missing/*.py: KVP001\n")


def _kept(done, cwd: Path, root: Path) -> dict:
    """file (relative to ``root``) -> the codes reported for it."""
    kept: dict = {}
    for row in json.loads(done.stdout):
        name = os.path.relpath(os.path.join(cwd, row["path"]), root)
        kept.setdefault(name, set()).add(row["code"])
    return kept


@pytest.mark.skipif(os.sep != "/", reason="a backslash in a file name is POSIX only")
def test_each_file_keeps_what_its_patterns_leave(tmp_path):
    root = write(tmp_path / "tree", {name: BOTH for name in IGNORED})
    unignored = _kept(poolguard("lint", "--isolated", "--format", "json", cwd=root, expect=1),
                      root, root)
    assert unignored == {name: {"KVP001", "KVP003"} for name in IGNORED}
    write(root, {"setup.cfg": _config(root)})
    expected = {name: {c for c in codes if not c.startswith(IGNORED[name])}
                for name, codes in unignored.items()}
    expected = {name: codes for name, codes in expected.items() if codes}
    runs = [  # (cwd, paths): by no name, from below, absolutely, with ./ prefixes
        (root, ()), (root / "pkg", ("..",)), (root, (str(root),)),
        (root, ("./legacy", "./pkg/", "./abs/c.py", "./win\\x.py", "./legacy2", "./keep")),
    ]
    for cwd, paths in runs:
        done = poolguard("lint", "--format", "json", *paths, cwd=cwd, expect=1)
        assert _kept(done, cwd, root) == expected, (cwd, paths)
