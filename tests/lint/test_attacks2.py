"""A second hostile round on the CLI: a safe fix ``--fix`` cannot apply is never advertised by
the run that tried it, what only a fix run knows never leaks into a later lint's cache, and the
main process's class-graph reading is linear and sees every line-break spelling Python reads."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from textwrap import dedent

import pytest
from clirun import STALE, json_rows, poolguard, write

from lint_rules.examples import read_example

PREFIX = read_example("trtllm_backend_prefix.py")  # one safe KVP002 fix


@pytest.mark.parametrize("tail", ["   \n\t\n   ", "\n\x0c   "], ids=["blank-eof", "form-feed"])
def test_a_safe_fix_libcst_cannot_apply_is_not_advertised_by_fix(tmp_path, tail):
    # libcst drops these trailing bytes when it re-emits the module: the fix is refused
    tree = write(tmp_path / "tree", {"b.py": PREFIX + tail})
    before = poolguard("lint", "b.py", cwd=tree, expect=1)
    assert " KVP002 [*] " in before.stdout and "1 fixable with" in before.stderr
    for mode in ("--fix", "--diff"):
        done = poolguard("lint", mode, "b.py", cwd=tree, expect=1)
        assert "[*]" not in done.stdout and "fixable with" not in done.stderr, done.stderr
        assert "poolguard: b.py: fix not applied: libcst cannot rewrite" in done.stderr
        assert (tree / "b.py").read_text() == PREFIX + tail
    # the fix run's verdict is not cached for a lint of the same bytes: warm equals cold
    again = poolguard("lint", "b.py", cwd=tree, expect=1)
    assert (again.stdout, again.stderr) == (before.stdout, before.stderr)


def test_a_declined_rewrite_is_not_replayed_by_a_later_lint(tmp_path):
    # a --diff --unsafe-fixes run records why the codemod declined the class; a lint of the same
    # bytes afterwards (warm cache) must print what a cold lint prints, not that line
    from test_unsafe_promises import GUARDED

    tree = write(tmp_path / "tree", {"guarded.py": GUARDED})
    cold = poolguard("lint", "--isolated", "--no-cache", "guarded.py", cwd=tree, expect=1)
    diff = poolguard("lint", "--isolated", "--diff", "--unsafe-fixes", "guarded.py", cwd=tree)
    assert "not rewritten by --unsafe-fixes" in diff.stderr
    warm = poolguard("lint", "--isolated", "guarded.py", cwd=tree, expect=1)
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_a_long_line_full_of_the_word_class_is_read_in_linear_time(tmp_path):
    # every file's class headers are read in the main process (no parse timeout there): a
    # one-line data file repeating "class" was rescanned from its start at each occurrence
    # (400,000 of them: minutes); the other file's finding is kept
    tree = write(tmp_path / "tree", {"data.py": 'LABELS = "' + "class " * 400_000 + '"\n',
                                     "b.py": STALE})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=tree,
                     expect=1, timeout=60)
    assert json_rows(done.stdout) == [("b.py", 3, "KVP001")]


BASE = dedent("""\
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class ParentAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.hybrid = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
""")
# no word of the rules' vocabulary: only the class graph brings this file in
CHILD = dedent("""\
    from p.base import ParentAttnBackend


    class ChildAttnBackend(ParentAttnBackend):
        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.hybrid:
                return q
            return k
""")


@pytest.mark.parametrize("spell", [lambda s: s, lambda s: s.replace("\n", "\r"),
                                   lambda s: s.replace("\nclass ", "\n\x0cclass ")],
                         ids=["lf", "cr-only", "form-feed"])
def test_a_subclass_is_in_the_class_graph_whatever_its_line_breaks(tmp_path, spell):
    tree = write(tmp_path / "tree", {"p/__init__.py": "", "p/base.py": BASE,
                                     "p/child.py": spell(CHILD).encode()})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "p", cwd=tree,
                     expect=1)
    assert json_rows(done.stdout) == [("p/base.py", 7, "KVP002"), ("p/child.py", 6, "KVP003")]


MIRROR = dedent("""\
    class MirrorAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

        def forward_decode(self, q, k, v, layer, forward_batch):
            tag = "\U0001F600"; return q if self.use_sliding_window_kv_pool else k
""")


def test_sarif_says_its_columns_count_code_points(tmp_path):
    # an astral character is one code point but two UTF-16 units (SARIF's usual unit): the log
    # must say which it counts, or every column after it is off by one
    tree = write(tmp_path / "tree", {"g.py": MIRROR})
    text = poolguard("lint", "--isolated", "--no-cache", "g.py", cwd=tree, expect=1)
    column = int(text.stdout.split(":")[2])
    line = MIRROR.splitlines()[6]
    assert line[column - 1:].startswith("self.use_sliding_window_kv_pool")
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "sarif", "g.py", cwd=tree,
                     expect=1)
    run = json.loads(done.stdout)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    [result] = run["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startColumn"] == column
    [replacement] = result["fixes"][0]["artifactChanges"][0]["replacements"]
    region = replacement["deletedRegion"]  # the whole line and its line break, in code points
    assert region["endColumn"] - region["startColumn"] == len(line) + 1


def test_a_run_from_a_deleted_directory_is_a_usage_error(tmp_path):
    # e.g. a shell left in a folder a checkout removed: one clear line, not "please report"
    (tmp_path / "gone").mkdir()
    write(tmp_path, {"b.py": STALE})
    script = f'cd "{tmp_path / "gone"}" && rmdir "$PWD" && exec "$0" -m lint_rules.cli lint "$1"'
    done = subprocess.run(["bash", "-c", script, sys.executable, str(tmp_path / "b.py")],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == ("poolguard: error: the current directory no longer exists: cd into "
                           "one that does\n")


def test_a_huge_file_is_refused_unread_and_the_others_are_linted(tmp_path):
    # a sparse 16 GiB "module" (or a data dump named .py) was read whole: the run died of memory
    tree = write(tmp_path / "tree", {"b.py": STALE})
    with open(tree / "dump.py", "wb") as handle:
        handle.truncate(16 * 1024 ** 3)
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=tree,
                     expect=2)
    assert json_rows(done.stdout) == [("b.py", 3, "KVP001")]
    assert done.stderr.splitlines() == ["poolguard: error: dump.py: larger than 268435456 bytes"]


@pytest.mark.parametrize("content", ['[tool.poolguard]\nselect = ["KVP003"]\n', "", "[mypy]\n"],
                         ids=["pyproject", "empty", "other-tool"])
def test_a_named_config_without_our_sections_is_refused(tmp_path, content):
    # --config pyproject.toml parsed as INI has sections, none ours: the user's select was dropped
    tree = write(tmp_path / "tree", {"b.py": STALE, "given.toml": content})
    done = poolguard("lint", "--no-cache", "--config", "given.toml", "b.py", cwd=tree, expect=2)
    assert done.stderr.startswith("poolguard: error: config file given.toml has no [flake8] or "
                                  "[poolguard] section") and done.stderr.count("\n") == 1


def test_write_baseline_never_overwrites_a_file_that_is_not_a_baseline(tmp_path):
    # `--write-baseline b.py b.py` (the file name forgotten) replaced the source with JSON
    tree = write(tmp_path / "tree", {"b.py": STALE, "setup.cfg": "[flake8]\nselect = KVP\n"})
    for target in ("b.py", "setup.cfg"):
        done = poolguard("lint", "--no-cache", "--write-baseline", target, "b.py", cwd=tree,
                         expect=2)
        assert done.stderr == (f"poolguard: error: {target} exists and is not a poolguard "
                               "baseline: not overwritten (remove it or name another file)\n")
    assert (tree / "b.py").read_text() == STALE
    # a baseline (of any version) is rewritten: that is how one is updated
    (tree / "old.json").write_text('{"format": "poolguard-baseline", "version": 0}')
    poolguard("lint", "--no-cache", "--write-baseline", "old.json", "b.py", cwd=tree, expect=0)
    poolguard("lint", "--no-cache", "--baseline", "old.json", "b.py", cwd=tree, expect=0)


def test_a_run_with_error_lines_never_says_all_checks_passed(tmp_path):
    tree = write(tmp_path / "tree", {"clean.py": "x = 1\n"})
    done = poolguard("lint", "--isolated", "--no-cache", "clean.py", "missing.py", cwd=tree,
                     expect=2)
    assert done.stderr.splitlines() == [
        "poolguard: error: missing.py: No such file or directory",
        "poolguard: No findings in the files checked; 1 error above."]
    assert poolguard("lint", "--isolated", "--no-cache", "clean.py", cwd=tree,
                     expect=0).stderr == "poolguard: All checks passed!\n"
