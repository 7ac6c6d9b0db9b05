"""``benchmarks/guard_cost.py --smoke``: the host-cost benchmark still runs and prints both
tables, one row per backend class that imports (CI runs it at a tiny shape; numbers mean
nothing here, the full run is in benchmarks/README.md)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "guard_cost.py"


def test_guard_cost_smoke_prints_a_row_per_backend():
    done = subprocess.run([sys.executable, str(SCRIPT), "--smoke", "--repeats", "3"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    modes = [line.split("|")[1].strip() for line in lines if line.startswith("| ")]
    assert {"off", "check", "bounds", "bounds, padded tables"} <= set(modes)
    assert "TRTLLMHAAttnBackend" in modes and "TorchNativeAttnBackend" in modes
    rows = [line for line in lines if line.startswith("| ") and "Backend" in line
            and "backend" not in line and "(" not in line]
    for row in rows:
        off, check, fixed = (float(cell) for cell in row.split("|")[2:5])
        assert 0 < off and 0 < check and 0 < fixed
    assert any(line.startswith("worst backend: check adds ") for line in lines)
    assert any(" pool slots, " in line for line in lines)  # the generic table has a real class
    assert any(line.startswith("generic check adds at most ") for line in lines)
    assert lines[-1].startswith(("late coverage (set_forward_context hook, class seen): ",
                                 "late coverage: this SGLang release has no set_forward_context"))
