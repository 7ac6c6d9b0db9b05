"""A seventeenth hostile round (attack17): a baseline asked what ``--diff`` leaves, and
``per-file-ignores`` read as flake8 reads them; through the real ``poolguard`` subprocess (and
the real flake8) on real files."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from clirun import json_rows, poolguard, write
from samples import GATED

EXAMPLE = (Path(__file__).resolve().parents[2] / "lint_rules" / "examples"
           / "trtllm_backend_prefix.py").read_text()


def _remains(stderr: str) -> str:
    return [line for line in stderr.splitlines() if "would remain" in line][-1]


@pytest.mark.parametrize("stdin", [False, True])
def test_diff_with_a_baseline_matches_the_findings_fix_leaves(tmp_path, stdin):
    # the bundled example: the safe KVP002 fix adds a property above both KVP003 gates, which
    # move down 8 lines; --diff fingerprinted those moved findings against the lines of the
    # unfixed file, so a baselined gate was "1 finding would remain" where --fix then said
    # "all checks passed! (3 findings hidden by the baseline)"
    root = write(tmp_path / "t", {"a.py": EXAMPLE})
    target = ["--stdin-filename", "a.py", "-"] if stdin else ["a.py"]

    def lint(*args, expect):
        with open(root / "a.py", "rb") as source:
            return poolguard("lint", "--isolated", "--no-cache", *args, *target, cwd=root,
                             expect=expect, stdin=source if stdin else None)

    lint("--write-baseline", "known.json", expect=0)
    done = lint("--diff", "--baseline", "known.json", expect=1)  # 1: it has changes to show
    assert "+    @property" in done.stdout
    assert _remains(done.stderr) == "poolguard: --fix would change 1 file; 0 findings would remain"
    done = lint("--fix", "--baseline", "known.json", expect=0)
    assert "all checks passed! (3 findings hidden by the baseline)" in done.stderr


# One KVP001 (line 3) and one KVP003 (line 11) in every file of the per-file-ignores tests.
BOTH = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.swa_pool = model_runner.token_to_kv_pool


""") + GATED.replace("DemoAttnBackend", "OtherAttnBackend")  # (its gate: line 6 + 5)


def _flake8_rows(root: Path, *paths) -> list:
    done = subprocess.run([sys.executable, "-m", "flake8", *paths], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    rows = (line.split(":", 3) for line in done.stdout.splitlines())
    return sorted((path, int(line), rest.split()[0]) for path, line, _, rest in rows
                  if rest.split()[0].startswith("KVP"))


@pytest.mark.parametrize("config", [
    # flake8 applies one entry per file, the longest pattern that matches: a file under
    # legacy/sub/ keeps its KVP001, which the CLI also ignored by the shorter legacy/*
    "per-file-ignores =\n    legacy/*: KVP001\n    legacy/sub/*: KVP003\n",
    # ... and the first of equally long ones; one of other tools' codes only wins the same way
    "per-file-ignores =\n    *.py: KVP001\n    b.py: KVP003\n",
    "per-file-ignores =\n    legacy/sub/*: E501\n    legacy/*: KVP001\n",
    "per-file-ignores = b.py:KVP003,b.py:KVP001\n",
    # an entry's codes join ignore, and the longest prefix decides: `select = KVP001` is
    # longer than the entry's KVP0, so flake8 keeps KVP001 where the CLI dropped it
    "select = KVP001, KVP003\nper-file-ignores =\n    legacy/sub/*: KVP0\n",
    "select = KVP001\nextend-select = KVP0\nper-file-ignores =\n    b.py: KVP00\n",
])
def test_per_file_ignores_leave_the_cli_what_they_leave_flake8(tmp_path, config):
    root = write(tmp_path / "t", {"legacy/sub/b.py": BOTH, "legacy/a.py": BOTH,
                                  "setup.cfg": "[flake8]\n" + config})
    expected = _flake8_rows(root, "legacy")
    done = poolguard("lint", "--no-cache", "--format", "json", "legacy", cwd=root)
    assert json_rows(done.stdout) == expected
    with open(root / "legacy/sub/b.py", "rb") as source:  # standard input by that name too
        done = poolguard("lint", "--format", "json", "--stdin-filename", "legacy/sub/b.py",
                         "-", cwd=root, stdin=source)
    assert json_rows(done.stdout) == [row for row in expected if row[0] == "legacy/sub/b.py"]


SUPPRESSED = dedent("""\
    # flake8: noqa
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
        def forward_decode(self, layer):
            if self.use_sliding_window_kv_pool:  # noqa: KVP003
                return 1
            return 0
""")


@pytest.mark.parametrize("value", ["true", "1", "On"])
def test_disable_noqa_in_the_config_is_read_as_flake8_reads_it(tmp_path, value):
    # `disable-noqa = true` in [flake8]: flake8 reports every finding whatever the noqa
    # comments say; the CLI honoured them and passed the file flake8 fails
    files = {"a.py": SUPPRESSED, "b.py": SUPPRESSED.replace("# flake8: noqa\n", "")}
    root = write(tmp_path / "t", {**files, "setup.cfg": f"[flake8]\ndisable-noqa = {value}\n"})
    expected = _flake8_rows(root, "a.py", "b.py")
    assert expected == [("a.py", 7, "KVP003"), ("b.py", 6, "KVP003")]
    done = poolguard("lint", "--format", "json", "a.py", "b.py", cwd=root, expect=1)
    assert json_rows(done.stdout) == expected
    done = poolguard("lint", "--add-noqa", "a.py", cwd=root, expect=2)  # it would hide nothing
    assert "disable-noqa" in done.stderr and (root / "a.py").read_text() == SUPPRESSED
    poolguard("lint", "--fix", "b.py", cwd=root, expect=0)  # the line is no longer suppressed
    assert "if self._swa_kv_pool is not None:  # noqa: KVP003" in (root / "b.py").read_text()
    (root / "setup.cfg").write_text("[flake8]\ndisable-noqa = false\n")
    poolguard("lint", "a.py", cwd=root, expect=0)


def test_a_disable_noqa_that_is_no_boolean_is_refused(tmp_path):
    root = write(tmp_path / "t", {"a.py": SUPPRESSED,
                                  "setup.cfg": "[poolguard]\ndisable-noqa = sometimes\n"})
    done = poolguard("lint", "a.py", cwd=root, expect=2)
    assert done.stderr.startswith("poolguard: error: disable-noqa") and "'sometimes'" in done.stderr


def test_a_class_of_thousands_of_gating_methods_is_linted_in_linear_time(tmp_path):
    # every gate's safe fix walked the whole class body for the names it binds (twice): 3,000
    # methods of one gate each took about a minute of CPU, so the file was KVP900 under the
    # limit and all its findings lost (20,000 took 4 minutes); --fix's plan then compared each
    # fix with every fix accepted before it (tests/lint/work_counts.py, path "methods")
    count = 3000
    source = dedent("""\
        class MirrorAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
    """) + "".join(f"\n    def forward_{i}(self, q):\n        if self.use_sliding_window_kv_pool:"
                   f"\n            return {i}\n" for i in range(count))
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "b.py", cwd=root,
                     expect=1, env={"POOLGUARD_PARSE_TIMEOUT": "15"})
    rows = json_rows(done.stdout)
    assert rows == [("b.py", 7 + 4 * i, "KVP003") for i in range(count)], rows[:3]


@pytest.mark.parametrize("config", [
    # flake8 keeps the opt-in KVP004 in its default ignore list until `ignore` is given, and
    # once an extend-ignore names KVP004 too, that default entry is the longest ignoring
    # prefix: a tie with the select, which ignores. The CLI compared KVP004 with KVP0 only
    "extend-select = KVP004\nextend-ignore = KVP0\n",
    "select = KVP003, KVP004\nextend-ignore = KVP\n",
    "extend-select = KVP004\nextend-ignore = KVP00\n",
    # with `ignore` given, flake8's defaults are gone and KVP004 beats KVP0
    "ignore = E501\nextend-select = KVP004\nextend-ignore = KVP0\n",
])
def test_select_and_ignore_choose_the_codes_flake8_chooses(tmp_path, config):
    root = write(tmp_path / "t", {"b.py": BOTH, "setup.cfg": "[flake8]\n" + config})
    expected = _flake8_rows(root, "b.py")
    done = poolguard("lint", "--no-cache", "--format", "json", "b.py", cwd=root)
    assert json_rows(done.stdout) == expected
