"""The flake8 adapter through the real flake8 (``python -m flake8`` in a temporary project)."""
import argparse
import ast
import json
import textwrap
from pathlib import Path

from lint_rules.engine import lint_source
from lint_rules.examples import read_example
from lint_rules.flake8_plugin import PoolGuardChecker
from lint_rules.options import Options

GATED = textwrap.dedent(
    """\
    class DemoAttnBackend(FlashInferAttnBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.has_swa = self._swa_kv_pool is not None

        def table(self, meta):
            if self.use_sliding_window_kv_pool:
                return meta.swa_page_table
            return meta.page_table if self.has_swa else None
    """
)
CUSTOM = textwrap.dedent(
    """\
    class Helper(PoolUser):
        def __init__(self, model_runner):
            self.pool_ref = model_runner.token_to_kv_pool

        def table(self, meta):
            return meta.swa_page_table if self.swa_on else meta.page_table
    """
)


def rows(stdout: str):
    """``[(path, line, col, code), ...]`` from flake8's default output format."""
    found = []
    for line in stdout.splitlines():
        path, lineno, col, rest = line.split(":", 3)
        found.append((Path(path).as_posix(), int(lineno), int(col), rest.split()[0]))
    return found


def test_default_run_reports_default_codes_with_flake8_columns(run_flake8):
    done = run_flake8({"gated.py": GATED}, "--extend-ignore=F821", "gated.py")
    assert done.returncode == 1
    # flake8 prints the plugin's 0-based column plus one
    assert rows(done.stdout) == [("gated.py", 7, 12, "KVP003")]
    [finding] = lint_source(GATED)
    assert (finding.line, finding.col + 1) == (7, 12)
    assert "FROZEN_KV" in done.stdout and "KVP003 gate on SWA flag" in done.stdout


def test_kvp004_is_off_by_default_and_enabled_by_extend_select(run_flake8):
    done = run_flake8({"gated.py": GATED}, "gated.py")
    assert "KVP004" not in done.stdout
    # an explicit --select of the whole prefix is flake8's "select all": KVP004 included
    done = run_flake8({"gated.py": GATED}, "--select", "KVP", "gated.py")
    assert [row[3] for row in rows(done.stdout)] == ["KVP004", "KVP003"]
    config = "[flake8]\nextend-select = KVP004\n"
    done = run_flake8({"gated.py": GATED, "setup.cfg": config}, "gated.py")
    assert ("gated.py", 4, 9, "KVP004") in rows(done.stdout)
    done = run_flake8({"gated.py": GATED}, "--select", "KVP004", "gated.py")
    assert rows(done.stdout) == [("gated.py", 4, 9, "KVP004")]


def test_an_ignore_list_leaves_kvp004_off_as_the_cli_does(run_flake8, tmp_path):
    # flake8 drops its default ignore list (where KVP004 sits) once ignore is given: the plugin
    # reports the opt-in code only when a select names it, like bugbear's B9xx
    from clirun import poolguard

    config = "[flake8]\nignore = E501,W503,F821\n"
    done = run_flake8({"gated.py": GATED, "setup.cfg": config}, "gated.py")
    assert rows(done.stdout) == [("gated.py", 7, 12, "KVP003")]
    done = run_flake8({"gated.py": GATED}, "--ignore=F821", "gated.py")
    assert rows(done.stdout) == [("gated.py", 7, 12, "KVP003")]
    cli = poolguard("lint", "--no-cache", "--format", "json", "gated.py", cwd=tmp_path)
    assert [row["code"] for row in json.loads(cli.stdout)] == ["KVP003"]
    done = run_flake8({"gated.py": GATED}, "--ignore=F821", "--extend-select=KVP004", "gated.py")
    assert [row[3] for row in rows(done.stdout)] == ["KVP004", "KVP003"]


def test_noqa_is_left_to_flake8(run_flake8):
    source = GATED.replace(
        "if self.use_sliding_window_kv_pool:", "if self.use_sliding_window_kv_pool:  # noqa: KVP003"
    )
    done = run_flake8({"gated.py": source}, "--select", "KVP003", "gated.py")
    assert done.returncode == 0 and done.stdout == ""
    bare = GATED.replace(
        "if self.use_sliding_window_kv_pool:", "if self.use_sliding_window_kv_pool:  # noqa"
    )
    assert run_flake8({"gated.py": bare}, "--select", "KVP003", "gated.py").stdout == ""
    other = GATED.replace(
        "if self.use_sliding_window_kv_pool:", "if self.use_sliding_window_kv_pool:  # noqa: KVP001"
    )
    assert rows(run_flake8({"gated.py": other}, "--select", "KVP003", "gated.py").stdout)


def test_per_file_ignores_from_tox_ini(run_flake8):
    config = "[flake8]\nselect = KVP\nper-file-ignores =\n    legacy/*.py: KVP003,KVP004\n"
    files = {"tox.ini": config, "legacy/old.py": GATED, "new.py": GATED}
    done = run_flake8(files, ".")
    assert [row[0] for row in rows(done.stdout)] == ["new.py", "new.py"]


def test_kvp_options_from_dot_flake8(run_flake8):
    files = {"custom.py": CUSTOM}
    assert run_flake8(files, "--select", "KVP", "custom.py").stdout == ""
    config = (
        "[flake8]\nselect = KVP\nkvp-backend-bases = PoolUser, OtherBase\n"
        "kvp-swa-flags = swa_on\nkvp-pool-attr = pool_ref\n"
    )
    done = run_flake8({**files, ".flake8": config}, "custom.py")
    assert rows(done.stdout) == [("custom.py", 3, 9, "KVP001"), ("custom.py", 6, 39, "KVP003")]
    # the message names the configured attr; kept from the active pool (line 3), it is to resolve
    assert "resolve self.pool_ref (#27491), test it" in done.stdout


def test_kvp_list_options_one_per_line_mean_the_same_to_flake8_and_the_cli(run_flake8, tmp_path):
    # flake8 splits list options on commas and whitespace: a list written one per line (or
    # space-separated) is valid for it, so the CLI reading the same file must not refuse it
    from clirun import poolguard

    config = ("[flake8]\nselect = KVP\nkvp-backend-bases =\n    PoolUser\n    OtherBase\n"
              "kvp-swa-flags = other swa_on\n")
    done = run_flake8({"custom.py": CUSTOM, "setup.cfg": config}, "custom.py")
    expected = [("custom.py", 3, 9, "KVP001"), ("custom.py", 6, 39, "KVP003")]
    assert rows(done.stdout) == expected
    cli = poolguard("lint", "--no-cache", "--format", "json", "custom.py", cwd=tmp_path, expect=1)
    assert [(r["path"], r["line"], r["column"], r["code"]) for r in json.loads(cli.stdout)] == \
        expected


def test_kvp_options_on_the_command_line(run_flake8):
    done = run_flake8(
        {"custom.py": CUSTOM},
        "--select=KVP",
        "--kvp-backend-bases",
        "PoolUser",
        "--kvp-swa-flags=swa_on",
        "custom.py",
    )
    assert [row[3] for row in rows(done.stdout)] == ["KVP001", "KVP003"]


def test_the_prefix_example_through_flake8(run_flake8):
    done = run_flake8({"prefix.py": read_example("trtllm_backend_prefix.py")}, "--select", "KVP")
    assert sorted({(line, code) for _, line, _, code in rows(done.stdout)}) == [
        (36, "KVP001"), (37, "KVP002"), (44, "KVP003"), (52, "KVP003")
    ]


def test_syntax_error_is_flake8_e999_and_the_engine_reports_kvp900(run_flake8):
    broken = (
        "class B(FlashInferAttnBackend):\n"
        "    def f(self:\n"
        "        self.use_sliding_window_kv_pool\n"
    )
    done = run_flake8({"broken.py": broken}, "--select", "E999,KVP", "broken.py")
    # flake8 cannot build an ast, so no plugin runs: E999 is flake8's own report
    assert [row[3] for row in rows(done.stdout)] == ["E999"]
    [finding] = lint_source(broken)
    assert finding.code == "KVP900" and finding.message.startswith("cannot parse:")


def test_checker_directly_yields_zero_based_columns_and_prefixed_messages():
    parsed = argparse.Namespace(kvp_backend_bases=[], kvp_swa_flags=[],
                                kvp_pool_attr=Options.pool_attr,  # (flake8's default for it)
                                select=None, extend_select=["KVP004"])
    PoolGuardChecker.parse_options(parsed)
    assert PoolGuardChecker.options == Options()
    lines = GATED.splitlines(keepends=True)
    results = list(PoolGuardChecker(ast.parse(GATED), lines, "gated.py").run())
    assert [(line, col, text.split()[0]) for line, col, text, _ in results] == [
        (4, 8, "KVP004"), (7, 11, "KVP003")
    ]
    assert all(kind is PoolGuardChecker for *_, kind in results)


def test_installed_plugin_is_listed_by_flake8(run_flake8):
    assert "sglang-poolguard" in run_flake8({}, "--version").stdout
    help_text = run_flake8({}, "--help").stdout
    assert all(option in help_text for option in
               ("--kvp-backend-bases", "--kvp-swa-flags", "--kvp-pool-attr"))


ALIASED = textwrap.dedent(
    """\
    from functools import partial as bind
    from operator import attrgetter as reader

    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class AliasedAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            pool = model_runner.token_to_kv_pool
            self.to_swa = bind(SWAKVPool.translate_loc_from_full_to_swa, pool)
            self.swa_side = reader("swa_kv_pool")(pool)
    """
)


def test_aliased_standard_helpers_are_seen_and_flake8s_tree_is_left_as_given(run_flake8):
    # the plugin reads `bind` as partial in a copy: pyflakes, sharing flake8's tree, still
    # sees both aliases used (no F401), and the findings are the CLI's
    done = run_flake8({"aliased.py": ALIASED}, "--select", "KVP,F401", "aliased.py")
    assert rows(done.stdout) == [("aliased.py", 10, 9, "KVP001"), ("aliased.py", 11, 9, "KVP001")]
    tree = ast.parse(ALIASED)
    before = ast.dump(tree, include_attributes=True)
    list(PoolGuardChecker(tree, ALIASED.splitlines(keepends=True), "aliased.py").run())
    assert ast.dump(tree, include_attributes=True) == before


def test_plugin_keeps_nothing_of_a_file_once_it_has_answered():
    """flake8 hands the plugin each file's tree and runs on for minutes: a tree the analysis
    still holds afterwards (a cache whose entry kept its own key, a cache of whole trees)
    stays alive for the worker's life, and every full collection of CPython's collector walks
    it again, outside the plugin's run() (whole 0.5.23 tree: 413,634 objects left behind)."""
    import gc
    import weakref

    source = read_example("trtllm_backend_prefix.py")
    tree = ast.parse(source)
    checker = PoolGuardChecker(tree, source.splitlines(True), "prefix.py")
    found = list(checker.run())
    assert any(text.startswith("KVP001") for _, _, text, _ in found)
    assert any(text.startswith("KVP003") for _, _, text, _ in found)
    alive = weakref.ref(tree)
    methods = [weakref.ref(node) for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    del tree, checker
    gc.collect()
    assert alive() is None
    assert [ref for ref in methods if ref() is not None] == []
