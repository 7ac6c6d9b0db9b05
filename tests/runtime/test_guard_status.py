"""``poolguard guard-status`` through the installed console script, on this SGLang."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

CPU_SITE = Path(__file__).parent / "cpu_site"


def _status(env_extra: dict) -> subprocess.CompletedProcess:
    exe = shutil.which("poolguard", path=os.path.dirname(sys.executable)) or "poolguard"
    env = {**os.environ, **env_extra}
    return subprocess.run([exe, "guard-status"], capture_output=True, text=True, env=env,
                          timeout=300)


def test_guard_status_lists_every_backend_with_what_is_covered():
    done = _status({"PYTHONPATH": str(CPU_SITE)})
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()  # stdout is the table alone: import chatter goes to stderr
    assert lines[0] == f"SGLang {version('sglang')}: backends poolguard describes"
    rows = {line.split()[0]: line for line in lines[3:]}
    from runtime_guard.backends import BACKENDS

    assert set(rows) == {spec.name for spec in BACKENDS}
    trtllm = rows["TRTLLMHAAttnBackend"]
    assert "decode, extend" in trtllm and "yes (fixed class)" in trtllm
    assert "torch_npu" in rows["AscendAttnBackend"] and " no " in rows["AscendAttnBackend"]
    if version("sglang") == "0.5.23":
        for name in ("FlashAttentionBackend", "TritonAttnBackend", "XPUAttentionBackend"):
            row = rows[name]
            assert "decode, extend" in row and row.rstrip().endswith("yes"), row
    else:  # 0.5.12: Triton computes no SWA flag yet
        assert " n/a " in rows["TritonAttnBackend"] and "no SWA state" in rows["TritonAttnBackend"]


def test_guard_status_says_so_in_one_line_when_sglang_cannot_import():
    # Without the CPU start-up hook, this CPU-only torch cannot import SGLang (torchvision).
    done = _status({"PYTHONPATH": ""})
    assert done.returncode == 0
    out = done.stdout.strip().splitlines()
    assert len(out) == 1 and "does not import here" in out[0], done.stdout
