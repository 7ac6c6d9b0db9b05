"""The fix benchmark keeps a CPU smoke path CI can afford: tiny tree, one run each, the table."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fix_throughput.py"


def test_fix_throughput_smoke_prints_every_run_and_the_libcst_share():
    done = subprocess.run([sys.executable, str(SCRIPT), "--smoke"], capture_output=True,
                          text=True, timeout=600, cwd=SCRIPT.parents[1])
    assert done.returncode == 0, done.stderr[-3000:]
    for run in ("poolguard lint (cold)", "poolguard lint --fix",
                "poolguard lint --fix --unsafe-fixes"):
        assert f"| {run} | 1 |" in done.stdout
    handed = next(line for line in done.stdout.splitlines() if "handed to libcst" in line)
    parsed = next(line for line in done.stdout.splitlines() if "past the text pre-filter" in line)
    assert 0 < int(handed.split("|")[2]) < int(parsed.split("|")[2])  # only files with fixes
