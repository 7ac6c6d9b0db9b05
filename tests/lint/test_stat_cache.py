"""The cache's stat shortcut: a file whose stat the cache remembers is not read again, and
nothing that changes a file's bytes can hide behind it.

Every tree here is written once and aged past ``RACY_NS`` (one sleep for the module), so the
runs below really take the shortcut (a fresh file's stat is never trusted). Then: backup and
sync tools that keep size and mtime (``cp -p``, ``rsync -a``, a ``touch -r`` copy renamed over
the file) still get the new bytes linted; an edited base class in another module still changes
its heir's result; a touched but unchanged file keeps its result without an analysis; a warm
run of an unchanged tree opens no source file, nor imports the analysis; mistyped stat rows
and a damaged list of rule codes are ignored.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from textwrap import dedent

import pytest
from clirun import STALE, json_rows, poolguard, write
from samples import GATED

from lint_rules import runner
from lint_rules.cache import RACY_NS, ResultCache, stat_row
from lint_rules.cli import build_parser
from lint_rules.commands import resolve_config

LINT = ("lint", "--isolated", "--format", "json")
QUIET = STALE.replace("self.swa_pool = model_runner.token_to_kv_pool",
                      "#" * len("self.swa_pool = model_runner.token_to_kv_pool"))
SWAPS = ["cp -p", "mv of touch -r copy"] + (["rsync -a"] if shutil.which("rsync") else [])
BASE = dedent("""\
    class BaseBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
""")
# the same size as BASE: the flag no longer comes from the pool
POOL_TEST = "isinstance(model_runner.token_to_kv_pool, SWAKVPool)"
PLAIN_BASE = BASE.replace(POOL_TEST, "False  # ".ljust(len(POOL_TEST), "-"))
HEIR = dedent("""\
    from pkg.base import BaseBackend


    class HeirBackend(BaseBackend):
        def forward_decode(self, layer):
            if self.is_swa:
                return 1
            return 0
""")


@pytest.fixture(scope="module")
def aged(tmp_path_factory):
    """Trees whose every file changed more than ``RACY_NS`` ago: their stats are trusted."""
    root = tmp_path_factory.mktemp("aged")
    trees = {
        "swap": write(root / "swap", {f"m{i}.py": QUIET for i in range(len(SWAPS))}),
        "spare": write(root / "spare", {"stale.py": STALE}),
        "package": write(root / "package", {"pkg/__init__.py": "", "pkg/base.py": BASE,
                                            "pkg/heir.py": HEIR}),
        "touch": write(root / "touch", {"stale.py": STALE, "gated.py": GATED}),
        "no_read": write(root / "no_read", {"stale.py": STALE, "gated.py": GATED,
                                            "plain.py": "x = 1\n"}),
    }
    for path in [*trees["swap"].iterdir(), *trees["spare"].iterdir()]:
        os.utime(path, (1_600_000_000, 1_600_000_000))  # a swap keeps size and mtime alike
    time.sleep(RACY_NS / 1e9 + 0.2)
    return trees


def _stats(cache) -> dict:
    (cache_file,) = cache.glob("lint-*.json")
    return json.loads(cache_file.read_text())["stats"]


def _swap(how: str, source, target) -> None:
    """Replace ``target`` by ``source``'s bytes the way backup and sync tools do."""
    if how == "cp -p":
        subprocess.run(["cp", "-p", str(source), str(target)], check=True)
    elif how == "rsync -a":
        subprocess.run(["rsync", "-a", str(source), str(target)], check=True)
    else:
        shutil.copyfile(source, f"{target}.new")
        subprocess.run(["touch", "-r", str(target), f"{target}.new"], check=True)
        os.replace(f"{target}.new", target)


def test_a_swap_behind_a_remembered_stat_is_linted_afresh(aged, tmp_path):
    tree, spare = aged["swap"], aged["spare"] / "stale.py"
    cache = tmp_path / "cache"
    assert poolguard(*LINT, cwd=tree, cache_dir=cache, expect=0).stdout == "[]\n"
    trusted = sorted(os.path.basename(path) for path in _stats(cache))
    assert trusted == sorted(p.name for p in tree.iterdir())
    for index, how in enumerate(SWAPS):
        target = tree / f"m{index}.py"
        before = target.stat()
        _swap(how, spare, target)
        after = target.stat()
        assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns), how
    warm = poolguard(*LINT, cwd=tree, cache_dir=cache, expect=1)
    assert json_rows(warm.stdout) == [(f"m{i}.py", 3, "KVP001") for i in range(len(SWAPS))]


def test_an_edited_base_in_another_module_changes_its_heirs_result(aged, tmp_path):
    tree = aged["package"]
    cache = tmp_path / "cache"
    flagged = [("pkg/base.py", 3, "KVP002"), ("pkg/heir.py", 6, "KVP003")]
    assert json_rows(poolguard(*LINT, "pkg", cwd=tree, cache_dir=cache).stdout) == flagged
    assert json_rows(poolguard(*LINT, "pkg", cwd=tree, cache_dir=cache).stdout) == flagged
    base = tree / "pkg" / "base.py"
    before = base.stat()
    base.write_text(PLAIN_BASE)  # same size, mtime put back: only ctime tells
    os.utime(base, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert base.stat().st_size == before.st_size
    warm = json_rows(poolguard(*LINT, "pkg", cwd=tree, cache_dir=cache).stdout)
    cold = json_rows(poolguard(*LINT, "pkg", cwd=tree, cache_dir=tmp_path / "cold").stdout)
    assert warm == cold == []


def _run(tree):
    config = resolve_config(build_parser().parse_args(["lint", "--isolated"]))
    cache = ResultCache.for_run(config.codes, config.options, config.per_file_ignores)
    result = runner.run([str(tree)], config, cache=cache)
    return sorted((os.path.basename(path), f.line, f.code) for path, f in result.findings)


def test_a_touched_unchanged_file_keeps_its_result_unanalysed(aged, tmp_path, monkeypatch):
    monkeypatch.setenv("POOLGUARD_CACHE_DIR", str(tmp_path / "cache"))
    tree = aged["touch"]
    cold = _run(tree)
    assert {code for _, _, code in cold} >= {"KVP001", "KVP003"}
    later = time.time_ns()
    os.utime(tree / "stale.py", ns=(later, later))  # a new stat, the same bytes

    def no_analysis(*args, **kwargs):
        raise AssertionError("a file whose bytes are cached was analysed again")

    monkeypatch.setattr(runner, "_analyse_all", no_analysis)
    assert _run(tree) == cold


def test_a_warm_run_of_an_unchanged_tree_opens_no_source(aged, tmp_path, monkeypatch):
    monkeypatch.setenv("POOLGUARD_CACHE_DIR", str(tmp_path / "cache"))
    tree = aged["no_read"]
    cold = _run(tree)
    opened = []
    real_read = runner.read_regular_file_stat

    def counting_read(path, limit):
        opened.append(path)
        return real_read(path, limit)

    monkeypatch.setattr(runner, "read_regular_file_stat", counting_read)
    assert _run(tree) == cold and opened == []
    (tree / "plain.py").write_text("y = 2\n")  # one file changes: the tree is read again
    assert _run(tree) == cold and len(opened) == 3


def test_a_fresh_stat_is_never_remembered(tmp_path):
    cache = ResultCache(tmp_path / "lint-test.json")
    fresh = write(tmp_path / "tree", {"fresh.py": STALE}) / "fresh.py"
    cache.remember_stat(str(fresh), fresh.stat(), "digest")
    assert cache.digest_by_stat(str(fresh), fresh.stat()) is None
    cache.started_ns += 2 * RACY_NS  # as seen by a run that starts later
    cache.remember_stat(str(fresh), fresh.stat(), "digest")
    assert cache.digest_by_stat(str(fresh), fresh.stat()) == "digest"


MANGLED_STATS = [
    lambda row: row[0],                          # not a list
    lambda row: [row[0]],                        # too short
    lambda row: [row[0], 7],                     # digest not a string
    lambda row: [row[0].split(), row[1]],        # stat not a string
    lambda row: ["0 0 0 0 0", row[1]],           # another file's stat
]


def test_mistyped_stat_rows_are_ignored(aged, tmp_path):
    tree = aged["no_read"]
    cache = tmp_path / "cache"
    cold = json_rows(poolguard(*LINT, cwd=tree, cache_dir=cache, expect=1).stdout)
    (cache_file,) = cache.glob("lint-*.json")
    data = json.loads(cache_file.read_text())
    for mangle in MANGLED_STATS:
        data["stats"] = {path: mangle(row) for path, row in data["stats"].items()}
        cache_file.write_text(json.dumps(data))
        assert json_rows(poolguard(*LINT, cwd=tree, cache_dir=cache).stdout) == cold
        data = json.loads(cache_file.read_text())
        assert all(row[0] == stat_row(os.stat(path)) for path, row in data["stats"].items())
    data["stats"] = ["not", "a", "table"]
    cache_file.write_text(json.dumps(data))
    assert json_rows(poolguard(*LINT, cwd=tree, cache_dir=cache).stdout) == cold


HEAVY = ("lint_rules.engine", "lint_rules.rules", "lint_rules.package", "libcst", "concurrent",
         "multiprocessing", "importlib.metadata")
IMPORTS_AFTER_RUN = (
    "import sys\n"
    "from lint_rules.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print([m for m in sorted(sys.modules) if m.startswith(%r)])\n"
    "sys.exit(status)\n" % (HEAVY,)
)


def test_a_warm_run_imports_neither_the_analysis_nor_the_pool(aged, tmp_path):
    tree = aged["no_read"]
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c", IMPORTS_AFTER_RUN, *LINT, "."]
    cold = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    warm = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    assert cold.returncode == warm.returncode == 1, warm.stderr
    *cold_rows, cold_imports = cold.stdout.splitlines()
    *warm_rows, warm_imports = warm.stdout.splitlines()
    assert warm_rows == cold_rows and "lint_rules.engine" in cold_imports
    assert warm_imports == "[]"


@pytest.mark.parametrize("garbage", ["{not json", "[]", '[["KVP001"], ["KVP009"]]',
                                     '[[], []]', '[[1, 2], [1]]', '{"a": 1}', "[" * 100_000,
                                     '[["KVP001", "XYZ1"], ["KVP001"]]',
                                     '[["KVP001", "KVP001"], ["KVP001"]]'])
def test_a_damaged_codes_file_is_derived_afresh(aged, tmp_path, garbage):
    tree, cache = aged["no_read"], tmp_path / "cache"
    cold = json_rows(poolguard(*LINT, cwd=tree, cache_dir=cache, expect=1).stdout)
    (codes_file,) = cache.glob("codes-*.json")
    known = json.loads(codes_file.read_text())
    codes_file.write_text(garbage)
    assert json_rows(poolguard(*LINT, cwd=tree, cache_dir=cache, expect=1).stdout) == cold
    assert json.loads(codes_file.read_text()) == known
