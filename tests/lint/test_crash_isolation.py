"""One hostile file costs one KVP900, never the run (issue 10, item 1 and 6).

The crash is real: libcst's native parser overflows its stack on ~2,000 nested brackets and
the process dies with SIGSEGV. The CLI analyses files in worker processes; when one dies the
other files' results are kept and the dead worker's files are re-analysed one per process.
"""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from clirun import STALE, chain, deep_brackets, json_rows, poolguard, write

OTHER_FILES = 70  # enough for the default --jobs to start a pool of every CPU


def test_the_crash_file_really_kills_libcst(tmp_path):
    path = write(tmp_path, {"crash.py": deep_brackets(nul=True)}) / "crash.py"
    done = subprocess.run(
        [sys.executable, "-c", "import sys, libcst; libcst.parse_module(open(sys.argv[1]).read())",
         str(path)], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGSEGV


def _tree_with(tmp_path, bad: dict):
    files = {f"pkg/backend_{i:02d}.py": STALE for i in range(OTHER_FILES)}
    return write(tmp_path / "tree", {**files, **bad}), sorted(
        (name, 3, "KVP001") for name in files)


@pytest.mark.parametrize("jobs", [["--jobs", "1"], ["--jobs", "2"]])
def test_a_parser_crash_costs_that_file_one_kvp900_and_keeps_every_other_result(tmp_path, jobs):
    tree, others = _tree_with(tmp_path, {"pkg/crash.py": deep_brackets(nul=True)})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", *jobs, cwd=tree,
                     expect=1)
    assert json_rows(done.stdout) == sorted([*others, ("pkg/crash.py", 1, "KVP900")])
    assert "SIGSEGV" in done.stdout


def test_nesting_deeper_than_python_accepts_is_kvp900_and_never_reaches_libcst(tmp_path):
    tree, others = _tree_with(tmp_path, {"pkg/deep.py": deep_brackets()})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", cwd=tree, expect=1)
    assert json_rows(done.stdout) == sorted([*others, ("pkg/deep.py", 4, "KVP900")])  # the x = line
    assert "nesting too deep" in done.stdout


# CPython 3.11 accepts 200 nested brackets and ~2,990-term chains (its ast construction limit);
# libcst's parser survives both (it overflows near 2,000 brackets / 10,000 terms). Code inside
# CPython's limits is checked like any other; nothing below them may be called "too deep".
@pytest.mark.parametrize("source", [chain(325), chain(2900), deep_brackets(200)],
                         ids=["chain325", "chain2900", "brackets200"])
def test_deep_but_valid_code_is_checked_not_reported_too_deep(tmp_path, source):
    tree = write(tmp_path / "tree", {"deep.py": source})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", cwd=tree, expect=1)
    assert json_rows(done.stdout) == [("deep.py", 3, "KVP001")]


def test_flake8_survives_the_crash_files_and_checks_the_deep_valid_one(run_flake8):
    # 300 terms: from about 320 on pyflakes itself (not this plugin) runs out of recursion
    # under ``python -m flake8`` and flake8 aborts the whole run
    files = {"crash.py": deep_brackets(nul=True), "deep.py": deep_brackets(),
             "chain.py": chain(300), "stale.py": STALE}
    done = run_flake8(files, "--select", "KVP,E999", "--jobs", "1", *sorted(files))
    assert done.returncode == 1, done.stderr
    codes = sorted({(line.split(":")[0], line.split()[1]) for line in done.stdout.splitlines()})
    assert codes == [("chain.py", "KVP001"), ("crash.py", "E999"), ("deep.py", "E999"),
                     ("stale.py", "KVP001")]


def test_an_internal_error_exits_2_with_one_line(monkeypatch, capsys, tmp_path):
    from lint_rules import cli, runner

    def broken_run(*args, **kwargs):
        raise RuntimeError("simulated bug\nsecond line")

    monkeypatch.setattr(runner, "run", broken_run)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lint", "--isolated", "--no-cache"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("poolguard: error: internal error")


def stuck_parse() -> str:
    """A backend with a 20,000-term chain and a syntax error after it: CPython rejects it at
    once, libcst's parser (asked for the reason) runs for minutes."""
    return STALE + "        x = " + " + ".join(["a"] * 20_000) + "\n        def (\n"


def test_a_file_the_parser_is_stuck_on_costs_one_kvp900_after_the_time_limit(tmp_path):
    tree, others = _tree_with(tmp_path, {"pkg/stuck.py": stuck_parse()})
    env_timeout = {"POOLGUARD_PARSE_TIMEOUT": "3"}
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "--jobs", "2",
                     cwd=tree, expect=1, timeout=240, env=env_timeout)
    assert json_rows(done.stdout) == sorted([*others, ("pkg/stuck.py", 1, "KVP900")])
    assert "still being parsed after 3 s" in done.stdout


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf"])
def test_a_bad_parse_timeout_exits_2_with_one_line(tmp_path, value):
    tree = write(tmp_path / "tree", {"a.py": STALE})
    done = poolguard("lint", "--isolated", cwd=tree, expect=2,
                     env={"POOLGUARD_PARSE_TIMEOUT": value})
    assert done.stderr.count("\n") == 1 and "POOLGUARD_PARSE_TIMEOUT" in done.stderr
