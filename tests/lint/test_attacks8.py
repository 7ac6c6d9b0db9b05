"""An eighth hostile round on the CLI (tidy8): what the earlier rounds left, through the real
``poolguard`` subprocess on real files."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from clirun import STALE, poolguard, write


def _unwritable_cache_dir(tmp_path: Path) -> Path:
    """A cache folder no write can go into: below a read-only folder, or, for root (who writes
    through any mode bits), below the kernel's own /proc."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        return locked / "cache"
    if not os.path.isdir("/proc/self"):
        pytest.skip("root with no /proc: no folder refuses root's writes")
    return Path("/proc/self/poolguard-cache")


def test_a_cache_dir_that_cannot_be_written_is_said_once_and_the_lint_goes_on(tmp_path):
    # a read-only cache folder (or $HOME/.cache) disabled the cache without a word: every
    # run was cold, and nothing said why
    root = write(tmp_path / "t", {"s.py": STALE, "b.py": STALE})
    cache = _unwritable_cache_dir(tmp_path)
    for jobs in ("1", "2"):
        done = poolguard("lint", "--jobs", jobs, ".", cwd=root, cache_dir=cache, expect=1)
        assert done.stdout.count("KVP001") == 2
        assert done.stderr.count("warning: no cache written: ") == 1, done.stderr
        assert f"{cache}: " in done.stderr and "POOLGUARD_CACHE_DIR" in done.stderr
    quiet = poolguard("lint", "--no-cache", ".", cwd=root, cache_dir=cache, expect=1)
    assert "warning" not in quiet.stderr, quiet.stderr
