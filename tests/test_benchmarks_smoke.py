"""The GPU benchmark scripts keep a CPU smoke path: CI (no GPU) runs each at a tiny shape and
checks that it prints its table. Their numbers here mean nothing; only that they run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _sglang_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sglang")
    except PackageNotFoundError:
        return ""


# The GPU scripts drive SGLang 0.5.23's own backend paths (KVIndexTranslator, KVLocPlan), the
# release the H200 run carries; older releases lack those modules.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or _sglang_version() != "0.5.23",
    reason="the GPU benchmarks need torch and SGLang 0.5.23",
)


def _run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--smoke", *args],
        capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _table_rows(text: str, header: str) -> list:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_bug_replay_smoke_prints_every_case():
    rows = _table_rows(_run("gpu_bug_replay.py"), "| case |")
    outcomes = {row[0]: row[3] for row in rows}
    assert list(outcomes) == [
        "unguarded", "unguarded, SGLang async assert", "unguarded, SGLang invariant check",
        "unguarded, compute-sanitizer", "bounds", "fix", "off-by-one, check",
        "off-by-one, bounds", "off-by-one, bounds, device assert",
        "off-by-one, SGLang async assert", "off-by-one, SGLang invariant check",
        "off-by-one, compute-sanitizer", "generic, unguarded", "generic, check",
        "generic, correct class, check",
    ]
    # SGLang's own aids do not look at what this launch reads (its probes are on KV writes)
    for case in ("unguarded", "off-by-one"):
        assert outcomes[f"{case}, SGLang async assert"] == "IndexError"
        assert outcomes[f"{case}, SGLang invariant check"] == "IndexError"
        assert outcomes[f"{case}, compute-sanitizer"] == "not run"  # no GPU: no memcheck
    assert outcomes["bounds"] == "SWAPoolMismatchError before the launch"
    assert outcomes["off-by-one, bounds"] == "SWAPoolMismatchError before the launch"
    # No CUDA here: the hooks' device-assert mode applies to CUDA tables only.
    assert outcomes["off-by-one, bounds, device assert"] == outcomes["off-by-one, bounds"]
    assert outcomes["fix"] == "output equals the reference"
    # The CPU stand-in kernel raises where the real one reads past the buffer.
    assert outcomes["unguarded"] == outcomes["off-by-one, check"] == "IndexError"
    # The same bug in a class no table names: the generic check refuses it, and is silent on
    # the correct class.
    assert outcomes["generic, unguarded"] == "IndexError"
    assert outcomes["generic, check"] == "SWAPoolMismatchError before the launch"
    assert "generic check" in {row[0]: row[4] for row in rows}["generic, check"]
    assert outcomes["generic, correct class, check"] == "output equals the reference"
    assert all(row[5] == "a correct launch afterwards succeeds" for row in rows
               if row[3] not in ("output equals the reference", "not run"))


def test_generic_cost_smoke_prints_both_classes():
    rows = _table_rows(_run("gpu_generic_cost.py"), "| backend | layer |")
    assert [(row[0].split(" (")[0], row[1]) for row in rows] == [
        ("TRTLLMHAAttnBackend", "SWA"), ("TRTLLMHAAttnBackend", "full"),
        ("LiveSwaXqaAttnBackend", "SWA"), ("LiveSwaXqaAttnBackend", "full")]
    assert all(float(row[5]) > 0 for row in rows)


def test_bounds_benchmark_smoke_prints_its_table():
    rows = _table_rows(_run("gpu_bounds.py", "--iters", "1", "--repeats", "1"), "| head_dim |")
    assert {(row[1], row[2]) for row in rows} == {
        (layer, mode) for layer in ("full", "SWA")
        for mode in ("eager, device assert", "eager, host check (debug)")
    }
    assert all(float(row[3]) > 0 and row[6].endswith("%") for row in rows)
