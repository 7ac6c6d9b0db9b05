"""The lint benchmark and the mutation run keep a CPU smoke path CI can afford: each runs at
tiny size and prints its table (the numbers mean nothing here; only that the scripts work)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600,
                          cwd=BENCHMARKS.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_lint_throughput_smoke_prints_tools_targets_and_profile():
    out = _run(str(BENCHMARKS / "lint_throughput.py"), "--smoke")
    assert "| poolguard lint (cold) | 1 |" in out and "| poolguard lint (warm) | 1 |" in out
    assert "| flake8 defaults + KVP (run() metered) | 1 |" in out
    plugin_row = next(line for line in out.splitlines() if line.startswith("| flake8 plugin"))
    assert "% | ≤ 1.5% |" in plugin_row
    assert "| files past the text pre-filter |" in out


def test_mutation_run_kills_a_mutant_and_scores_it():
    listing = _run(str(BENCHMARKS / "mutation.py"), "--list")
    assert {"a", "b", "c"} <= {line.split()[0] for line in listing.splitlines()}
    out = _run(str(BENCHMARKS / "mutation.py"), "--only", "noqa-bare", "--no-baseline")
    row = next(line for line in out.splitlines() if line.startswith("| noqa-bare |"))
    assert "| killed |" in row
    assert "mutation score: 1/1 = 100% killed" in out
