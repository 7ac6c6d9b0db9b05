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


def _status(env_extra: dict, cpu_site: bool = False) -> subprocess.CompletedProcess:
    """Run the console script with only ``env_extra``'s SGLANG_* variables; ``cpu_site`` puts
    the tests' CPU start-up hook first on the path (the rest of PYTHONPATH is kept)."""
    exe = shutil.which("poolguard", path=os.path.dirname(sys.executable)) or "poolguard"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env.update(env_extra)
    paths = [str(CPU_SITE)] if cpu_site else []
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return subprocess.run([exe, "guard-status"], capture_output=True, text=True, env=env,
                          timeout=300)


def test_guard_status_lists_every_backend_with_what_is_covered():
    # the allow-list names the plugin among others: it is loaded, so the status is 0
    done = _status({"SGLANG_POOLGUARD": "on", "SGLANG_POOLGUARD_FIX": "yes",
                    "SGLANG_PLUGINS": "other, poolguard"}, cpu_site=True)
    assert done.returncode == 0, done.stderr[-2000:]
    # stdout is the table and the environment line: import chatter goes to stderr
    table, environment = done.stdout.split("\n\n")[1:]
    assert done.stdout.startswith(f"SGLang {version('sglang')}: backends poolguard describes\n")
    assert environment == "This environment: guard check (raise), fix on.\n"
    rows = {line.split()[0]: line for line in table.splitlines()[1:]}
    from runtime_guard.backends import BACKENDS

    described = {spec.name for spec in BACKENDS}
    assert described <= set(rows)
    generic = [row for name, row in rows.items() if name not in described]
    assert generic and all(" generic " in row or "overrides forward" in row for row in generic)
    trtllm = rows["TRTLLMHAAttnBackend"]
    assert "decode, extend" in trtllm and "yes (fixed class)" in trtllm
    assert "torch_npu" in rows["AscendAttnBackend"] and " no " in rows["AscendAttnBackend"]
    if version("sglang") == "0.5.23":
        for name in ("FlashAttentionBackend", "TritonAttnBackend", "XPUAttentionBackend"):
            row = rows[name]
            assert "decode, extend" in row and row.rstrip().endswith("yes"), row
    else:  # 0.5.12: Triton computes no SWA flag yet
        assert " n/a " in rows["TritonAttnBackend"] and "no SWA state" in rows["TritonAttnBackend"]


def test_guard_status_fails_in_one_line_when_sglang_cannot_import_and_names_the_fix():
    # Without the CPU start-up hook, a CPU torch beside PyPI's torchvision (a CUDA build)
    # cannot import SGLang. The same run has an allow-list that leaves the plugin out.
    done = _status({"SGLANG_POOLGUARD": "bounds", "SGLANG_PLUGINS": "other"})
    assert done.returncode == 1, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if line.startswith("poolguard: ")]
    assert said[0] == ("poolguard: SGLANG_PLUGINS='other' leaves out 'poolguard': SGLang will "
                       "not call the plugin and nothing is guarded; add poolguard to "
                       "SGLANG_PLUGINS")
    if done.stdout:  # a torchvision built for this torch: SGLang imports, the table is shown
        assert done.stdout.rstrip().endswith(
            "This environment: guard bounds (raise), fix off (SGLang will not load the plugin).")
        return
    assert len(said) == 2 and "does not import here" in said[1], done.stderr
    if "torchvision::" in said[1]:
        assert "--index-url https://download.pytorch.org/whl/cpu torch==" in said[1]


@pytest.mark.parametrize("name", ["SGLANG_POOLGUARD", "SGLANG_POOLGUARD_ACTION",
                                  "SGLANG_POOLGUARD_FIX"])
def test_guard_status_refuses_what_the_plugin_refuses(name):
    from runtime_guard.config import read_config
    from runtime_guard.errors import PoolGuardConfigError

    with pytest.raises(PoolGuardConfigError) as refused:  # the plugin's own parser
        read_config({name: "maybe"})
    done = _status({name: "maybe"})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"poolguard: {refused.value}; the server would refuse to start\n"
