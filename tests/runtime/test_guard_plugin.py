"""The guard through SGLang's real plugin loader: entry point, env switches, hooks, fix.

Each scenario runs ``loader_child.py`` in a fresh interpreter (patches made by
``load_plugins()`` last for the process) with the installed package's entry point.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from installed_sglang import child_env

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

HERE = Path(__file__).parent


def run_child(scenario: str, **env_vars: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HERE / "loader_child.py"), scenario],
        capture_output=True, text=True, env=child_env(**env_vars), timeout=300,
    )


def observed(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def poolguard_lines(done: subprocess.CompletedProcess) -> list:
    return [line for line in done.stderr.splitlines() if "poolguard" in line.lower()
            and line.startswith("runtime_guard|")]


def test_entry_point_is_visible():
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="sglang.srt.plugins") if ep.name == "poolguard"]
    assert [ep.value for ep in found] == ["runtime_guard.entry:load"]


# Importable on a CPU host with SGLang 0.5.23 (FlashAttention and XPU through the sgl_kernel
# test shim); Ascend needs torch_npu and is reported as not covered.
CPU_IMPORTABLE = {
    "TRTLLMHAAttnBackend", "FlashInferAttnBackend", "FlashAttentionBackend", "TritonAttnBackend",
    "TorchNativeAttnBackend", "IntelAMXAttnBackend", "AiterAttnBackend", "XPUAttentionBackend",
}
MULTI_STEP = {"TRTLLMHAAttnMultiStepDraftBackend", "FlashInferMultiStepDraftBackend",
              "TritonMultiStepDraftBackend"}


def _expected_classes() -> set:
    from importlib.metadata import version

    if version("sglang") == "0.5.23":
        return CPU_IMPORTABLE | MULTI_STEP
    return {"TRTLLMHAAttnBackend", "FlashInferAttnBackend", "TritonAttnBackend"}


def test_off_touches_nothing():
    seen = observed(run_child("off"))
    assert _expected_classes() <= set(seen["classes"])
    assert {k: v for k, v in seen.items() if k != "classes"} == {
        "untouched": [True, True, True], "registered": [], "hooks_imported": False}


def test_guard_on_wraps_every_backend_that_imports():
    seen = observed(run_child("every_backend", SGLANG_POOLGUARD="check"))["wrapped"]
    assert _expected_classes() <= set(seen)
    for name, methods in seen.items():
        assert "init_forward_metadata" in methods, name
        if "MultiStep" not in name:
            assert {"__init__", "forward_decode", "forward_extend"} <= set(methods), name


def test_check_mode_hooks_are_applied_once_and_stop_the_bug():
    seen = observed(run_child("check", SGLANG_POOLGUARD="1"))
    assert {"__init__", "forward_decode", "forward_extend", "init_forward_metadata"} <= set(
        seen["wrapped"]
    )
    replay_paths = {"init_forward_metadata_out_graph", "init_forward_metadata_replay_cuda_graph"}
    assert replay_paths & set(seen["wrapped"])
    assert seen["wraps_original"] and seen["idempotent"]
    assert seen["replay"]["error"].startswith("SWAPoolMismatchError: poolguard (live: ")
    assert "layer 0 (SWA)" in seen["replay"]["error"]
    assert seen["replay"]["kv_untouched"]


def test_fix_installs_the_fixed_backends():
    seen = observed(run_child("fix", SGLANG_POOLGUARD="bounds", SGLANG_POOLGUARD_FIX="1"))
    assert seen == {
        "backend": True, "draft": True, "fixed_subclasses_upstream": True,
        "registry_builds_fixed": True, "fixed_launch_hooked": True,
    }


def test_fix_through_the_loader_makes_every_backend_follow_the_target_pool():
    seen = observed(run_child("fix_every_backend", SGLANG_POOLGUARD="1", SGLANG_POOLGUARD_FIX="1"))
    expected = {name for name in _expected_classes() if "MultiStep" not in name}
    assert expected <= set(seen)
    for name, result in seen.items():
        assert result["outcome"] != "SWAPoolMismatchError", (name, result)
        assert all(result["flags"]), (name, result)
    torch_native = seen.get("TorchNativeAttnBackend", {})
    if torch_native.get("keeps_state"):  # SGLang >= 0.5.13; its kernel runs on a CPU
        assert torch_native["outcome"] == "ran"
    assert any(result["keeps_state"] for result in seen.values())


def test_missing_targets_are_one_log_line_each_not_a_crash():
    done = run_child("degraded", SGLANG_POOLGUARD="check")
    assert observed(done) == {"decode_hooked": True}
    lines = [line for line in poolguard_lines(done) if "backend classes hooked" not in line]
    assert len(lines) == 2
    assert "TRTLLMHAAttnBackend (not importable here" in lines[0]
    assert "not covered on this SGLang version" in lines[1]
    assert "TRTLLMHAAttnBackend (no metadata method to hook)" in lines[1]


def test_bad_value_stops_at_load_with_one_clear_line():
    done = run_child("bad", SGLANG_POOLGUARD="yes please")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "poolguard: SGLANG_POOLGUARD='yes please' is not valid; "
        "accepted values: unset, 0, off, false, no, 1, on, true, yes, check, bounds"
    )


def test_sglangs_own_invariant_check_values_never_stop_an_unguarded_server():
    # SGLANG_INVARIANT_CHECK belongs to SGLang (an int: 0/1/2); with the guard off the plugin
    # must not even read it, whatever it holds
    for value in ("2", "not a level"):
        seen = observed(run_child("off", SGLANG_INVARIANT_CHECK=value,
                                  SGLANG_ENABLE_ASYNC_ASSERT=f"{value}?"))
        assert seen["untouched"] == [True, True, True] and not seen["hooks_imported"]


def test_invariant_check_levels_are_read_as_sglang_spells_them():
    from runtime_guard.config import read_config
    from runtime_guard.demo import scenarios as sc

    sc.sglang()  # SGLang's CPU import path
    level = getattr(importlib.import_module("sglang.srt.environ"), "InvariantCheckLevel", None)
    if level is None:
        pytest.skip("this SGLang release has no SGLANG_INVARIANT_CHECK")
    for member in level:  # SGLang parses int(value) into its IntEnum: " 02" is 2 too
        for value in (str(member.value), f" 0{member.value}"):
            config = read_config({"SGLANG_POOLGUARD": "1", "SGLANG_INVARIANT_CHECK": value})
            assert config.latent == member.name.lower()


def test_async_assert_is_read_as_sglangs_envbool_reads_it():
    import warnings

    from runtime_guard.config import ASYNC_ASSERT_VAR, async_assert, read_config
    from runtime_guard.demo import scenarios as sc
    from runtime_guard.errors import PoolGuardConfigError

    sc.sglang()
    field = getattr(importlib.import_module("sglang.srt.environ").envs, ASYNC_ASSERT_VAR, None)
    if field is None:
        pytest.skip("this SGLang release has no SGLANG_ENABLE_ASYNC_ASSERT")
    for value in ("y", "Y", "yes", "TRUE", "1", "n", "No", "false", "0", "", " 1", "on", "2"):
        with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            patch.setenv(ASYNC_ASSERT_VAR, value)
            sglang_reads = field.get()  # SGLang's own parse (it warns, then uses off)
        assert async_assert({ASYNC_ASSERT_VAR: value}) is sglang_reads, value
        env = {"SGLANG_POOLGUARD": "bounds", ASYNC_ASSERT_VAR: value}
        if warned:  # what SGLang only warns about (and runs with off) stops a bounds guard
            with pytest.raises(PoolGuardConfigError, match="accepted values .as SGLang"):
                read_config(env)
        else:
            assert read_config(env).bounds
        assert not read_config({"SGLANG_POOLGUARD": "check", ASYNC_ASSERT_VAR: value}).bounds


def test_a_bad_async_assert_stops_a_bounds_guard_at_load_with_one_line():
    done = run_child("bad", SGLANG_POOLGUARD="bounds", SGLANG_ENABLE_ASYNC_ASSERT="maybe")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "poolguard: SGLANG_ENABLE_ASYNC_ASSERT='maybe' is not valid; accepted values (as "
        "SGLang reads them): unset, true, 1, yes, y, false, 0, no, n")


def test_a_subclass_shipping_its_own_launches_is_found_hooked_and_listed():
    seen = observed(run_child("subclass", SGLANG_POOLGUARD="check"))
    assert seen["wrapped"] == ["forward_decode", "forward_mixed"]  # extend: the base's hook
    assert seen["base_decode_once"]
    assert seen["listed"] == ["ProbeTritonAttnBackend (subclass of TritonAttnBackend)"]
    if seen["keeps_state"]:  # 0.5.23 Triton keeps an SWA flag; 0.5.12 computes none
        for name, error in seen["refused"].items():
            assert error and "ProbeTritonAttnBackend (draft" in error, (name, error)


def test_hooks_are_registered_once_through_repeated_installs_and_other_plugins():
    seen = observed(run_child("idempotent", SGLANG_POOLGUARD="check"))
    assert seen["first"] == ["other_plugin", "guard_launch"]
    assert seen["after"] == seen["first"]
