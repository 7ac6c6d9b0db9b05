"""Backend classes defined after the plugin loaded (``guard_late``), through SGLang's real
plugin loader in a fresh interpreter: each is hooked through ``HookRegistry`` the first time it
runs (its forward context published, the base dispatch, a table class's metadata hook), so
every stale form is refused naming its state and every correct twin launches, in every
configuration; with the guard off nothing is registered and ``set_forward_context`` stays
SGLang's own function."""

from __future__ import annotations

import functools
import sys

import pytest
from installed_sglang import HERE, child_answer, package_dir

pytest.importorskip("torch")
_SGLANG = package_dir()
if _SGLANG is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)
if not (_SGLANG / "srt" / "model_executor" / "forward_context.py").is_file():
    # 0.5.12 has none: its backends are reached only through the load-time hooks
    pytest.skip("this SGLang release has no forward_context, where late classes are hooked",
                allow_module_level=True)


CHILD = """
import json, sys, time
sys.path.insert(0, {here!r})
from runtime_guard.demo import scenarios as sc
sg = sc.sglang()
from sglang.srt.model_executor import forward_context as fc
sg.load_plugins()
sg.load_plugins()  # a second load registers nothing twice
import guard_late as gl  # every class of it is defined after the plugin loaded
from runtime_guard import generic


class FirstSeenAtDispatch(gl.TRTLLM):
    METADATA_IN_FORWARD = True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return q

    @classmethod
    def build(cls, model_runner):
        return sc.construct_backend(sc.pre_fix_backend_class(cls), model_runner)


def outcome(cls, config, **kwargs):
    try:
        gl.launch(cls, config, **kwargs)
        return "launched"
    except Exception as err:
        return f"{{type(err).__name__}}: {{err}}"


hooks_before = set(sg.HookRegistry._hooks)
start = time.perf_counter()
no_context = outcome(FirstSeenAtDispatch, gl.FROZEN_KV, context=False)
first = time.perf_counter() - start
start = time.perf_counter()
outcome(FirstSeenAtDispatch, gl.FROZEN_KV, context=False)
again = time.perf_counter() - start
results = {{f"{{cls.__name__}}|{{config}}": outcome(cls, config) for cls, config in gl.cases()}}


class LateGraphMetadata(gl.LiveOwnDispatchAttnBackend):
    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False):
        self.rows = forward_batch.batch_size


graph_launch = outcome(LateGraphMetadata, gl.FROZEN_KV)
graph_hooked = generic.wraps(vars(LateGraphMetadata)["init_forward_metadata_out_graph"],
                             generic.guard_graph_metadata)
late_targets = sorted(set(sg.HookRegistry._hooks) - hooks_before)
print(json.dumps(dict(
    results=results, no_context=no_context, late_targets=late_targets,
    pending=max(len(sg.HookRegistry._hooks[t]) for t in late_targets) if late_targets else 0,
    applied=all(t in sg.HookRegistry._patched for t in late_targets),
    setter_wrapped=hasattr(fc.set_forward_context, "__wrapped__"),
    mixin_wrapped=generic.wraps_dispatch(vars(gl._LateForwardMixin)["forward"]),
    super_untouched="forward" not in vars(gl.OverrideCallsSuperAttnBackend) or not hasattr(
        vars(gl.OverrideCallsSuperAttnBackend)["forward"], "__wrapped__"),
    graph_launch=graph_launch, graph_hooked=graph_hooked,
    first_ms=first * 1e3, again_ms=again * 1e3)))
"""


@functools.lru_cache(maxsize=None)
def run_child(guard: str) -> dict:
    switches = {"SGLANG_POOLGUARD": guard} if guard else {}
    return child_answer(CHILD.format(here=HERE), timeout=600, **switches)


def _cases(expect: str) -> list:
    sys.path.insert(0, HERE)
    import guard_late as gl

    return [pytest.param(cls.__name__, config, getattr(cls, "STALE_STATE", ""),
                         id=f"{cls.__name__}-{config}")
            for cls, config in gl.cases() if cls.EXPECT == expect]


@pytest.mark.parametrize("name, config, state", _cases("stale"))
def test_a_stale_class_defined_after_load_is_refused_naming_its_state(name, config, state):
    seen = run_child("1")["results"][f"{name}|{config}"]
    assert seen.startswith("SWAPoolMismatchError: poolguard ("), seen
    assert name in seen and "SWAKVPool" in seen and state in seen, seen


@pytest.mark.parametrize("name, config, state", _cases("correct"))
def test_a_correct_class_defined_after_load_launches(name, config, state):
    assert run_child("1")["results"][f"{name}|{config}"] == "launched"


def test_a_class_first_seen_at_the_base_dispatch_is_hooked_there():
    """No forward context published: the base dispatch's hook sees the class first and hooks
    its own ``forward_decode`` before the dispatch calls it."""
    seen = run_child("1")["no_context"]
    assert seen.startswith("SWAPoolMismatchError: poolguard (live"), seen
    assert "PreFixFirstSeenAtDispatch" in seen and "_swa_kv_pool is None" in seen, seen


def test_late_hooks_go_through_the_hook_registry_once():
    seen = run_child("1")
    assert seen["setter_wrapped"] and seen["mixin_wrapped"] and seen["super_untouched"]
    assert seen["late_targets"] and seen["applied"] and seen["pending"] == 1, seen
    assert any(t.endswith("FirstSeenAtDispatch.forward_decode") for t in seen["late_targets"])
    assert any(":_late_" in t for t in seen["late_targets"]), seen["late_targets"]  # <locals>


def test_a_late_class_gets_its_cuda_graph_metadata_hooked_too():
    """Its replay metadata runs no forward dispatch: hooked at first sight like its launches."""
    seen = run_child("1")
    assert seen["graph_launch"] == "launched" and seen["graph_hooked"], seen


def test_with_the_guard_off_nothing_is_hooked_and_every_class_launches():
    seen = run_child("")
    assert not seen["setter_wrapped"] and not seen["late_targets"] and not seen["mixin_wrapped"]
    assert not seen["graph_hooked"]
    assert set(seen["results"].values()) == {"launched"}
    assert seen["no_context"] == "launched"
