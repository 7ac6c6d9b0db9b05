"""The upstream patch at runtime: SGLang 0.5.23's backends as the resolver codemod rewrote them
(``poolguard lint --fix --unsafe-fixes``, the ``upstream_patch`` fixture) against the same
backends as released, on real SGLang pools, allocators and ``frozen_kv_target_view`` with the
guard installed by the real ``load_plugins()`` (``check``, then ``bounds``).

Two interpreters (``patched_child.py``): one imports the patched modules ahead of the installed
SGLang, one runs SGLang as released. Each imports every changed module, then replays a FROZEN_KV
MTP draft per backend class and records what a target, an EAGLE draft and a non-SWA model decide.
TorchNative runs end to end on a CPU; the others run their real ``__init__``, metadata build and
launch as far as a CPU lets them (the guard's check comes before the kernel). Where a CPU stops a
patched ``__init__`` before its resolution line, the class's own ``_resolve_swa_kv_pool`` gives
that line's value (``init_resolved`` says which).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("torch")
try:
    INSTALLED = metadata.version("sglang")
except metadata.PackageNotFoundError:
    pytest.skip("SGLang is not installed", allow_module_level=True)
if INSTALLED != "0.5.23":
    pytest.skip("the patch is for SGLang 0.5.23's sources", allow_module_level=True)

HERE = Path(__file__).resolve().parent
# The six: 0.5.23 still decides SWA once in __init__ from the active pool. Five are
# patched; XPU keeps its copy of the runner's model flag (is_hybrid_swa) as the model's flag,
# also true for a FROZEN_KV draft's borrowed pool. AscendAttnBackend (needs torch_npu) is
# declined: it caches the pool's mapping in __init__ under that flag.
STILL_BROKEN = ("TritonAttnBackend", "FlashAttentionBackend", "TorchNativeAttnBackend",
                "IntelAMXAttnBackend", "XPUAttentionBackend")
SAME_KINDS = ("SWA target", "non-SWA model", "EAGLE draft, own pool")


def _start(tree: str, modules: list) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE), str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, str(HERE / "patched_child.py"), tree,
                             ",".join(modules)], cwd=HERE, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _result(child: subprocess.Popen) -> dict:
    out, err = child.communicate(timeout=600)
    assert child.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(upstream_patch):
    """(patched, released) observations; the two interpreters run side by side."""
    modules = upstream_patch.module_names()
    patched = _start(str(upstream_patch.tree), modules)
    released = _start("-", modules)
    return _result(patched), _result(released)


def test_the_patched_modules_are_the_ones_imported(runs, upstream_patch):
    patched, released = runs
    assert patched["overlaid"] == upstream_patch.module_names()
    assert released["overlaid"] == []


def test_every_module_that_imported_before_imports_after(runs):
    patched, released = runs
    before = {name for name, seen in released["modules"].items() if seen == "ok"}
    assert before  # Ascend needs torch_npu here; the rest import
    assert {name for name in before if patched["modules"][name] != "ok"} == set()
    assert patched["modules"] == released["modules"]  # and what failed fails the same way


@pytest.mark.parametrize("name", STILL_BROKEN)
@pytest.mark.parametrize("mode", ["check", "bounds"])
def test_frozen_kv_replay_passes_the_guard_only_when_patched(runs, name, mode):
    patched, released = runs
    fixed, before = patched["backends"][name][mode], released["backends"][name][mode]
    assert before["guard"] and "SWAPoolMismatchError" in before["guard"]  # fails as today
    assert fixed["guard"] is None, fixed
    assert fixed["flag"] is True  # the draft reads the target's SWA pool
    assert fixed["steps"]["flag_outside_view"] is True  # the allocator's pool, outside too
    assert fixed["model_flag"] in (None, True)  # XPU's kept model flag: true for the borrow


@pytest.mark.parametrize("name", STILL_BROKEN)
@pytest.mark.parametrize("kind", SAME_KINDS)
def test_target_eagle_and_non_swa_behave_as_before(runs, name, kind):
    patched, released = runs
    assert patched["backends"][name]["same"][kind] == released["backends"][name]["same"][kind]


def test_torch_native_end_to_end(runs):
    """The FROZEN_KV draft's decode equals the target-pool reference once patched; as released
    the guard stops it; a target, an EAGLE draft and a non-SWA model decode the same values."""
    patched = runs[0]["backends"]["TorchNativeAttnBackend"]["torch_native"]
    released = runs[1]["backends"]["TorchNativeAttnBackend"]["torch_native"]
    assert patched["frozen_kv"] == patched["reference"]
    assert released["frozen_kv"].startswith("guard SWAPoolMismatchError")
    assert patched["outputs"] == released["outputs"]
    assert runs[0]["backends"]["TorchNativeAttnBackend"]["check"]["steps"] == {
        "flag_outside_view": True, "metadata": "ran", "decode_swa": "ran", "decode_full": "ran"}


def test_upstream_fixed_backends_are_untouched_in_behaviour(runs):
    """trtllm and FlashInfer resolve already (their gates now read the pool): both pass."""
    patched, released = runs
    for name in ("TRTLLMHAAttnBackend", "FlashInferAttnBackend"):
        for mode in ("check", "bounds"):
            assert patched["backends"][name][mode]["guard"] is None
            assert released["backends"][name][mode]["guard"] is None
        assert patched["backends"][name]["same"] == released["backends"][name]["same"]
