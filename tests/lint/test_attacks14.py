"""A fourteenth hostile round on the CLI (attack14): what ``--diff`` shows against what
``--fix`` writes on packages, hostile file systems and configurations; through the real
``poolguard`` subprocess on real files."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from clirun import poolguard, write

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def _diff_then_fix(tmp_path: Path, files: dict, *flags: str) -> tuple:
    """``--diff`` applied with ``git apply`` to one copy of ``files``, ``--fix`` run on another
    (same flags, same cache): both runs and both trees."""
    diffed, fixed = write(tmp_path / "diffed", files), write(tmp_path / "fixed", files)
    cache = tmp_path / "cache"
    diff = poolguard("lint", "--diff", *flags, "q", cwd=diffed, cache_dir=cache)
    subprocess.run(["git", "init", "-q", str(diffed)], check=True)
    subprocess.run(["git", "apply", "-"], cwd=diffed, input=diff.stdout, text=True, check=True)
    fix = poolguard("lint", "--fix", *flags, "q", cwd=fixed, cache_dir=cache)
    return diff, fix, _snapshot(diffed), _snapshot(fixed)


# q/b.py holds an heir of q/a.py's backend and, in another class, a store of the same flag:
# the resolver rewrite of ParentAttnBackend is declined ('a subclass in another module may
# assign self.paged_split') until the safe fix of q/b.py makes OtherAttnBackend's flag a
# property; --fix then rewrites q/a.py in its next pass over the fixed package.
PARENT = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class ParentAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.paged_split = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def forward_extend(self, q, layer):
            if self.paged_split:
                return q
            return layer
""")
FREEING = dedent("""\
    from q.a import ParentAttnBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class ChildAttnBackend(ParentAttnBackend):
        pass


    class OtherAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.paged_split = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def forward_extend(self, q, layer):
            if self.paged_split:
                return q
            return layer
""")


@needs_git
def test_diff_with_unsafe_fixes_shows_what_a_later_pass_of_fix_writes(tmp_path):
    # --fix analyses again the files whose analysis read a module it rewrote, but --diff wrote
    # nothing and stopped after one pass: it showed q/b.py alone ('--fix would change 1 file;
    # 2 findings would remain') where --fix --unsafe-fixes rewrote both files and passed.
    # Found by a random-package fuzzer (git apply of --diff against --fix).
    files = {"q/__init__.py": "", "q/a.py": PARENT, "q/b.py": FREEING}
    diff, fix, diffed, fixed = _diff_then_fix(tmp_path, files, "--unsafe-fixes")
    assert diff.stderr.splitlines() == [
        "poolguard: --fix would change 2 files; 0 findings would remain"]
    assert fix.stderr.splitlines() == ["poolguard: Fixed 2 files; all checks passed!"]
    assert diffed == fixed
    assert "def paged_split(self)" in fixed["q/a.py"].decode()
    # nothing was written by --diff, and its cached drafts never answer a lint of the tree
    cold = poolguard("lint", "--no-cache", "--format", "json", "q", cwd=tmp_path / "fixed")
    warm = poolguard("lint", "--format", "json", "q", cwd=tmp_path / "fixed",
                     cache_dir=tmp_path / "cache")
    assert cold.stdout == warm.stdout == "[]\n"
    again = poolguard("lint", "--diff", "--unsafe-fixes", "q", cwd=write(tmp_path / "again", files),
                      cache_dir=tmp_path / "cache")
    assert again.stdout == diff.stdout
    assert _snapshot(tmp_path / "again") == {k: v.encode() for k, v in files.items()}


# The rewrite refuses a class whose only hazard is no SWA flag: --unsafe-fixes says so.
CLASS_TABLE = dedent("""\
    class ClassTableAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            ClassTableAttnBackend.table = model_runner.token_to_kv_pool.full_to_swa_index_mapping
""")
DECLINED_LINE = ("poolguard: m.py: ClassTableAttnBackend not rewritten by --unsafe-fixes: "
                 "a hazard that is not an SWA flag (e.g. a cached pool)")


@pytest.mark.parametrize("mode", ["--fix", "--diff"])
def test_unsafe_fixes_say_why_a_class_is_declined_when_a_lint_cached_its_findings(tmp_path, mode):
    # a plain lint (which never runs the codemod) cached the KVP001 with no fix at all, and a
    # warm '--fix/--diff --unsafe-fixes' took that for 'nothing to fix': the line saying why
    # the class was not rewritten (and the JSON 'declined' entry) came only from a cold run.
    # Found by a fuzzer of single files (--diff cold against warm).
    root = write(tmp_path / "t", {"m.py": CLASS_TABLE})
    cold = poolguard("lint", "--no-cache", mode, "--unsafe-fixes", "m.py", cwd=root, expect=1)
    assert DECLINED_LINE in cold.stderr.splitlines()
    poolguard("lint", "m.py", cwd=root, expect=1)
    warm = poolguard("lint", mode, "--unsafe-fixes", "m.py", cwd=root, expect=1)
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
    cold_json = poolguard("lint", "--no-cache", "--fix", "--unsafe-fixes", "--format", "json",
                          "m.py", cwd=root, expect=1)
    warm_json = poolguard("lint", "--fix", "--unsafe-fixes", "--format", "json", "m.py",
                          cwd=root, expect=1)
    assert warm_json.stdout == cold_json.stdout and '"declined"' in cold_json.stdout
    assert (root / "m.py").read_text() == CLASS_TABLE


STALE_POOL = ("class DemoAttnBackend(AttentionBackend):\n"
              "    def __init__(self, model_runner):\n"
              "        self.swa_pool = model_runner.token_to_kv_pool  # caf\xe9\n")


@pytest.mark.parametrize("data", [
    STALE_POOL.encode("latin-1"),  # not UTF-8, no cookie
    STALE_POOL.replace("\n", "\r").encode("latin-1"),  # the same, CR-only
    b"\xef\xbb\xbf" + STALE_POOL.encode("latin-1"),  # a BOM, then latin-1
    b"# coding: ascii\n" + STALE_POOL.encode("latin-1"),  # a cookie its bytes break
    b"# coding: no-such-codec\n" + STALE_POOL.encode("ascii", "replace"),
], ids=["latin1", "latin1-cr", "bom-latin1", "ascii-cookie", "unknown-codec"])
def test_flake8_reports_a_file_python_cannot_decode_as_the_cli_does(tmp_path, data):
    # flake8 reads a file its codec cannot decode as latin-1 (FileProcessor's fallback), and
    # the plugin linted that text (KVP001 at 3:9) where 'poolguard lint' of the same file says
    # KVP900 'cannot decode the file' (Python refuses to run it): one file, two answers
    root = write(tmp_path / "t", {"m.py": data})
    cli = poolguard("lint", "--isolated", "--no-cache", "m.py", cwd=root, expect=1)
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
                             "m.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in flake8.stderr, flake8.stderr
    assert cli.stdout.startswith("m.py:1:1: KVP900 cannot parse: cannot decode the file (")
    assert flake8.stdout == cli.stdout


def test_flake8_still_lints_a_file_that_decodes_with_non_ascii_text(tmp_path):
    latin = b"# -*- coding: latin-1 -*-\n" + STALE_POOL.encode("latin-1")
    root = write(tmp_path / "t", {"m.py": STALE_POOL.encode("utf-8"), "l.py": latin})
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
                             "m.py", "l.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert sorted(line.split(" ")[:2] for line in flake8.stdout.splitlines()) == [
        ["l.py:4:9:", "KVP001"], ["m.py:3:9:", "KVP001"]]
