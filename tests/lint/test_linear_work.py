"""The analysis stays linear in its input, checked by counting work, never by timing it.

For each path of ``work_counts`` (one file linted, one file fixed, a package linted), eight
times the input may cost at most eight times the work above the fixed cost, with a quarter to
spare (``SLACK``): what every linear pass pays. A pass that is quadratic in the gates, stores or
modules costs up to 64 times as much instead. Measured on main 4db531e: 8.2 x (lint), 8.5 x
(fix), 7.8 x (package, its dependency record left out: see ``work_counts``); with the
tests_around walk per store of 3e08780 put back, 42.6 x (lint) and 14.6 x (fix); with a scan of
every module per module lookup, 12.4 x (package). Counts come from one child process with a
fixed hash seed, the same on every run: 3.5 s CPU."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SLACK = 1.25


@pytest.fixture(scope="module")
def counts() -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, str(HERE / "work_counts.py")], capture_output=True,
                          text=True, timeout=300, env=env, cwd=HERE.parents[1])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("path", ["lint", "fix", "package", "unpack", "methods"])
def test_eight_times_the_input_costs_at_most_eight_times_the_work(counts, path):
    base, small, large = (run["events"] for run in counts[path])
    ratio = (large - base) / (small - base)
    assert ratio <= 8 * SLACK, f"{path}: 8 x the input cost {ratio:.1f} x the work"


@pytest.mark.parametrize("path", ["lint", "fix", "package", "unpack", "methods"])
def test_the_generated_input_is_analysed(counts, path):
    """The counts measure an analysis that finds something: findings grow with the input."""
    base, small, large = (run["findings"] for run in counts[path])
    assert 0 < small < large


def test_no_full_collection_while_a_file_is_analysed(counts):
    """The cyclic collector stays paused in ``lint_source`` (5c3a823): each full collection
    walked everything built so far, a cost that grew faster than the file."""
    assert [run["full_collections"] for run in counts["lint"]] == [0, 0, 0]
