"""A file that cannot be written whole is left exactly as it was (issue 16, class 6).

The disk is really full: a 64 KiB tmpfs is mounted (root only; skipped with the reason
otherwise) and filled, then ``--fix`` must grow a file (the KVP002 property fix adds ~190
bytes into a new page). A hard-linked file is rewritten in place, through its inode; a plain
one through a temp file and a rename; a baseline through a temp file too. Every one must be
refused with ENOSPC and keep its bytes. The in-place path also keeps the unchanged-content
check: an edit made while the run goes is never overwritten.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from clirun import fix_while_edited, poolguard, write

from lint_rules.rules import RULES_BY_CODE

GROWS = RULES_BY_CODE["KVP002"].INVALID[0]  # its fix is longer than the source
PAGE = 4096


def _padded(source: str) -> str:
    """``source`` plus a comment filling its page, so the longer fix needs one more page."""
    return source + "#" * (PAGE - len(source.encode()) - 2) + "\n"


@pytest.fixture
def full_disk(tmp_path):
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if not sys.platform.startswith("linux"):
        pytest.skip("needs a Linux tmpfs")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def _fill(mount) -> None:
    """Fill what is left of the file system, one page at a time until ENOSPC."""
    with open(mount / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * PAGE)
        except OSError:
            pass


def test_a_full_disk_refuses_every_write_and_keeps_every_byte(full_disk):
    tree = full_disk / "tree"
    sources = {"linked.py": _padded(GROWS.source), "plain.py": _padded(GROWS.source)}
    write(tree, sources)
    os.link(tree / "linked.py", full_disk / "other_name.py")
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "../old-baseline.json",
              ".", cwd=tree, expect=0)  # a real baseline: only one may be replaced
    old_baseline = (full_disk / "old-baseline.json").read_text()
    before = {name: (tree / name).read_bytes() for name in sources}
    _fill(full_disk)
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=tree, expect=2)
    for name in sources:
        assert f"{name}: cannot write the fix: No space left on device" in done.stderr
        assert (tree / name).read_bytes() == before[name], name
        assert f"{name}:5:13: KVP002" in done.stdout  # still reported: it is still there
    assert os.stat(tree / "linked.py").st_ino == os.stat(full_disk / "other_name.py").st_ino
    baseline = poolguard("lint", "--isolated", "--no-cache", "--write-baseline",
                         "../old-baseline.json", ".", cwd=tree, expect=2)
    assert "cannot write baseline ../old-baseline.json: No space left" in baseline.stderr
    assert (full_disk / "old-baseline.json").read_text() == old_baseline
    assert not [p for p in tree.iterdir() if p.name.startswith(".poolguard-")]  # no litter
    (full_disk / "filler").unlink()  # room again: the same run now fixes both
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=tree, expect=0)
    assert (full_disk / "other_name.py").read_text() == (tree / "linked.py").read_text()
    assert "@property" in (tree / "linked.py").read_text()


@pytest.mark.parametrize("linked", [True, False], ids=["hard-linked (in place)", "renamed"])
def test_an_edit_during_the_run_is_never_overwritten(tmp_path, linked):
    """The edit lands between poolguard's read and its write: files are read (largest
    first) before any is analysed, and a big file keeps the one worker busy while a watcher
    rewrites the small one as soon as its access time shows the read."""
    big = GROWS.source + "".join(f"\ndef helper_{i}(x):\n    return x + {i}\n"
                                 for i in range(3000))
    tree = write(tmp_path / "tree", {"big.py": big, "small.py": GROWS.source})
    if linked:
        os.link(tree / "small.py", tmp_path / "small_link.py")
    edited = GROWS.source.replace("def table", "def table_edited_by_a_person")
    done = fix_while_edited(tree, "small.py", edited)
    assert (tree / "small.py").read_text() == edited
    if linked:
        assert (tmp_path / "small_link.py").read_text() == edited
    assert "small.py: cannot write the fix: changed since poolguard read it" in done.stderr
    assert done.returncode == 2
