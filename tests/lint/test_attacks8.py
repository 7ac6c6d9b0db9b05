"""An eighth hostile round on the CLI (tidy8): what the earlier rounds left, through the real
``poolguard`` subprocess on real files; the engine's work on deep input counted (``work_counts``),
never timed."""
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


@pytest.mark.parametrize("codec", ["punycode", "undefined"])
def test_a_cookie_whose_codec_fails_as_unicode_error_is_one_kvp900(tmp_path, codec):
    # these codecs fail with UnicodeError, not its subclass UnicodeDecodeError: the run ended
    # in "internal error, please report" (exit 2) and every other file's findings were lost
    root = write(tmp_path / "t", {"odd.py": f"# coding: {codec}\n" + STALE, "s.py": STALE})
    done = poolguard("lint", "--no-cache", ".", cwd=root, expect=1)
    assert f"odd.py:1:1: KVP900 cannot parse: cannot decode the file (decoding with '{codec}'" \
        in done.stdout, done.stdout
    assert "s.py:3:9: KVP001" in done.stdout and "error" not in done.stderr, done.stderr


def test_a_path_named_twice_is_one_error_line_as_it_is_one_file(tmp_path):
    # findings were said once for a file named twice, error lines once per naming
    root = write(tmp_path / "t", {"s.py": STALE})
    os.mkfifo(root / "pipe.py")
    done = poolguard("lint", "--no-cache", "pipe.py", "./pipe.py", "nope.py", "nope.py", ".",
                     str(root), cwd=root, expect=2)
    assert done.stderr.count("pipe.py: not a regular file") == 1, done.stderr
    assert done.stderr.count("nope.py: No such file or directory") == 1, done.stderr
    assert done.stderr.count("poolguard: error: ") == 2, done.stderr
    assert done.stdout.count("KVP001") == 1


def test_an_unknown_code_with_an_invisible_character_is_shown_quoted(tmp_path):
    # 'select = KVP<NUL>' was refused as "unknown code KVP", a code that is known
    root = write(tmp_path / "t", {"s.py": STALE, "setup.cfg": "[flake8]\nselect = KVP\x00\n"})
    done = poolguard("lint", "--no-cache", "s.py", cwd=root, expect=2)
    assert "unknown code 'KVP\\x00' in " in done.stderr, done.stderr


def test_a_deep_attribute_chain_costs_work_linear_in_its_depth(monkeypatch):
    # every level of pool.a.a... asked for the self path below it, and each ask walked (by
    # recursion) down to the base: 2,400 levels (CPython parses about 2,900) took 2 s of one
    # line's analysis. Counted as calls of the walk, never timed.
    from lint_rules.engine import lint_source
    from lint_rules.rules import _flow

    calls = 0
    walk = _flow.self_path

    def counted(node):
        nonlocal calls
        calls += 1
        return walk(node)

    monkeypatch.setattr(_flow, "self_path", counted)

    def work(depth: int) -> int:
        nonlocal calls
        calls = 0
        lint_source(STALE + f"        self.x = pool{'.a' * depth}\n")
        return calls

    base, small, big = work(10), work(300), work(2400)
    assert big - base <= 8 * 1.25 * (small - base), (base, small, big)
