"""A seventh hostile round on the CLI (tidy7): the promises of the earlier rounds under input
nobody tried, through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirun import STALE, poolguard, write

FULL = Path("/dev/full")


def test_a_baseline_named_dash_is_refused_before_any_work(tmp_path):
    # "-" is stdout to most tools, but stdout holds the report: a file named "-" was written
    root = write(tmp_path / "t", {"s.py": STALE})
    done = poolguard("lint", "--no-cache", "--write-baseline", "-", "s.py", cwd=root, expect=2)
    assert done.stderr.count("\n") == 1 and "--write-baseline" in done.stderr, done.stderr
    assert not (root / "-").exists()


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("args", [["--help"], ["lint", "--help"], ["explain", "--help"],
                                  ["--version"]])
def test_help_and_version_to_a_full_stdout_fail_in_one_line(tmp_path, args):
    # argparse's help went to the buffer, the flush at exit failed, and the status stayed 0
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "cache")}
    with open(FULL, "w") as full:
        done = subprocess.run([sys.executable, "-m", "lint_rules.cli", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "stdout" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("where", ["file", "file/below"])
def test_a_cache_dir_that_cannot_be_a_folder_is_said_once_and_the_lint_goes_on(tmp_path, where):
    # a regular file where the cache folder should be disabled the cache without a word
    root = write(tmp_path / "t", {"s.py": STALE, "b.py": STALE})
    (tmp_path / "file").write_text("not a folder")
    done = poolguard("lint", ".", cwd=root, cache_dir=tmp_path / where, expect=1)
    assert done.stdout.count("KVP001") == 2
    assert done.stderr.count("warning: no cache") == 1, done.stderr
    assert f"{tmp_path / 'file'} is not a directory" in done.stderr, done.stderr
    assert (tmp_path / "file").read_text() == "not a folder"
    poolguard("lint", "--no-cache", ".", cwd=root, cache_dir=tmp_path / where, expect=1)


def test_temp_files_of_a_killed_cache_write_are_removed_next_run(tmp_path):
    # a SIGKILL between the cache's temp write and its rename left .lint-*.tmp for ever
    root = write(tmp_path / "t", {"s.py": STALE})
    cache = tmp_path / "cache"
    cache.mkdir()
    old = time.time() - 3600
    # (named as mkstemp names them: 8 random characters; a user's .lint-notes.tmp is kept)
    for name in (".lint-k1ll3d00.tmp", ".codes-k1ll3d00.tmp", ".index-k1ll3d00.tmp"):
        (cache / name).write_text("{half")
        os.utime(cache / name, (old, old))
    (cache / ".lint-fresh.tmp").write_text("a concurrent run's")
    (cache / ".other-k1ll3d.tmp").write_text("not ours")
    os.utime(cache / ".other-k1ll3d.tmp", (old, old))
    poolguard("lint", "s.py", cwd=root, cache_dir=cache, expect=1)
    left = sorted(p.name for p in cache.glob(".*.tmp"))
    assert left == [".lint-fresh.tmp", ".other-k1ll3d.tmp"], left


def test_a_file_that_ran_out_of_time_is_not_cached_as_unparsable(tmp_path):
    # a KVP900 "still being parsed after N s" is the machine's load or the limit, not the
    # file's: it was cached, and every later run (any limit) answered KVP900 for those bytes
    root = write(tmp_path / "t", {"s.py": STALE})
    cache = tmp_path / "cache"
    done = poolguard("lint", "s.py", cwd=root, cache_dir=cache, expect=1,
                     env={"POOLGUARD_PARSE_TIMEOUT": "1e-9"})
    assert "KVP900" in done.stdout and "still being parsed" in done.stdout, done.stdout
    done = poolguard("lint", "s.py", cwd=root, cache_dir=cache, expect=1)
    assert "KVP001" in done.stdout and "KVP900" not in done.stdout, done.stdout


def test_a_cache_dir_given_with_a_tilde_is_the_home_folder_not_a_folder_named_tilde(tmp_path):
    # POOLGUARD_CACHE_DIR='~/cache' (an env file, a systemd unit: no shell to expand it) made
    # a folder named '~' in the linted tree, one `rm -rf ~` away from losing a home
    root = write(tmp_path / "t", {"s.py": STALE})
    home = tmp_path / "home"
    home.mkdir()
    poolguard("lint", "s.py", cwd=root, cache_dir=Path("~/pgcache"), env={"HOME": str(home)},
              expect=1)
    assert not (root / "~").exists()
    assert list((home / "pgcache").glob("lint-*.json"))
