"""Results always belong to the content on disk (issue 16, classes 5 and 7).

Stale results: the cache is keyed on the bytes' digest, the enabled codes, the rule options
and the config, so a file replaced by another of equal size and mtime (``cp -p``, ``rsync
-a``, ``mv`` of a ``touch -d`` copy) or a run with other ``--kvp-*`` options never gets an
answer computed for something else. The same file twice: every alias of one file (relative
and absolute paths, ``./x.py``, a symlink, a hard link, a directory and a file inside it) is
linted and fixed once.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from clirun import STALE, json_rows, poolguard, write
from samples import GATED

# the same size as STALE, no finding: a comment where the pool read was
QUIET = STALE.replace("self.swa_pool = model_runner.token_to_kv_pool",
                      "#" * len("self.swa_pool = model_runner.token_to_kv_pool"))
CUSTOM_BASE = STALE.replace("DemoAttnBackend(AttentionBackend)", "Demo(PoolUser)")
LINT = ("lint", "--format", "json")


def _copy_keeping_stat(how: str, source, target) -> None:
    """Replace ``target`` by ``source``'s bytes the way backup and sync tools do."""
    if how == "cp -p":
        subprocess.run(["cp", "-p", str(source), str(target)], check=True)
    elif how == "rsync -a":
        subprocess.run(["rsync", "-a", str(source), str(target)], check=True)
    else:  # a copy dated like the original, then renamed over it
        shutil.copyfile(source, f"{target}.new")
        subprocess.run(["touch", "-r", str(target), f"{target}.new"], check=True)
        os.replace(f"{target}.new", target)


def test_a_file_replaced_by_equal_size_and_mtime_is_linted_afresh(tmp_path):
    ways = ["cp -p", "mv of touch -r copy"] + (["rsync -a"] if shutil.which("rsync") else [])
    tree = write(tmp_path / "tree", {f"m{i}.py": QUIET for i in range(len(ways))})
    spare = write(tmp_path / "spare", {"stale.py": STALE}) / "stale.py"
    assert len(QUIET) == len(STALE)
    when = 1_600_000_000
    for path in [spare, *tree.iterdir()]:
        os.utime(path, (when, when))  # old enough for any stat shortcut to trust it
    cache = tmp_path / "cache"
    assert poolguard(*LINT, "--isolated", cwd=tree, cache_dir=cache, expect=0).stdout == "[]\n"
    for index, how in enumerate(ways):
        _copy_keeping_stat(how, spare, tree / f"m{index}.py")
        st = (tree / f"m{index}.py").stat()
        assert (st.st_size, int(st.st_mtime)) == (len(STALE), when), how
    warm = poolguard(*LINT, "--isolated", cwd=tree, cache_dir=cache, expect=1)
    assert json_rows(warm.stdout) == [(f"m{i}.py", 3, "KVP001") for i in range(len(ways))]


def test_the_cache_is_keyed_on_kvp_options_and_config(tmp_path):
    """Several runs share one cache; each changes an option or the config between them."""
    tree = write(tmp_path / "tree", {"custom.py": CUSTOM_BASE, "gated.py": GATED})
    twin = {"twin.py": GATED}  # equal bytes, other per-file codes: not one cached answer
    cache = tmp_path / "cache"

    def rows(*args):
        done = poolguard(*LINT, *args, cwd=tree, cache_dir=cache)
        return sorted((r["path"], r["code"], r["message"]) for r in json.loads(done.stdout))

    plain = rows("--isolated")
    assert [row[:2] for row in plain] == [("gated.py", "KVP003")]
    with_base = rows("--isolated", "--kvp-backend-bases", "PoolUser")
    assert [row[:2] for row in with_base] == [("custom.py", "KVP001"), ("gated.py", "KVP003")]
    attr = rows("--isolated", "--kvp-pool-attr", "_live_pool")
    assert "self._live_pool" in attr[0][2] and "self._swa_kv_pool" in plain[0][2]
    assert rows("--isolated") == plain  # and back: each configuration keeps its own answers
    write(tree, {"setup.cfg": "[poolguard]\nkvp-backend-bases = PoolUser\n"})
    assert rows() == with_base
    write(tree, {"setup.cfg": "[poolguard]\nkvp-backend-bases = PoolUser\n"
                              "per-file-ignores = gated.py:KVP003\n", **twin})
    for _ in range(2):  # cold, then answered from the cache
        assert [row[:2] for row in rows()] == [("custom.py", "KVP001"), ("twin.py", "KVP003")]


@pytest.fixture
def aliased(tmp_path):
    """One backend file reachable by every kind of alias, plus a second, plain file."""
    tree = write(tmp_path / "tree", {"pkg/gated.py": GATED, "other.py": STALE})
    os.symlink("gated.py", tree / "pkg" / "link.py")
    os.link(tree / "pkg" / "gated.py", tree / "hard.py")
    names = ["pkg/gated.py", "./pkg/gated.py", str(tree / "pkg" / "gated.py"), "pkg/link.py",
             "hard.py", "pkg//gated.py", "pkg/../pkg/gated.py", "pkg", "."]
    return tree, names


def test_every_alias_of_one_file_is_reported_once(aliased):
    tree, names = aliased
    done = poolguard(*LINT, "--isolated", "--no-cache", *names, cwd=tree, expect=1)
    assert json_rows(done.stdout) == [("other.py", 3, "KVP001"), ("pkg/gated.py", 6, "KVP003")]
    text = poolguard("lint", "--isolated", "--no-cache", *names, cwd=tree, expect=1)
    assert text.stdout.count("KVP003") == 1


def test_fix_through_every_alias_at_once_fixes_the_file_once(aliased):
    tree, names = aliased
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", *names, cwd=tree, expect=1)
    assert "changed since" not in done.stderr and "error" not in done.stderr, done.stderr
    assert "KVP003" not in done.stdout and "other.py:3:9: KVP001" in done.stdout
    fixed = (tree / "pkg" / "gated.py").read_text()
    assert fixed == GATED.replace("if self.use_sliding_window_kv_pool",
                                  "if self._swa_kv_pool is not None")
    assert (tree / "hard.py").read_text() == fixed  # still one inode
    assert os.stat(tree / "hard.py").st_ino == os.stat(tree / "pkg" / "gated.py").st_ino
    assert (tree / "pkg" / "link.py").is_symlink()
    diff = poolguard("lint", "--isolated", "--no-cache", "--diff", *names, cwd=tree, expect=1)
    assert diff.stdout == ""  # nothing left to fix, and nothing reported twice
