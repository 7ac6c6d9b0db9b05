"""Every launch path of SGLang 0.5.23 (``docs``: upstream-0.5.23.md), through SGLang's real plugin
loader in a fresh interpreter: a FROZEN_KV MTP draft's stale state is refused on each, its
correct twin never.

Paths: the base dispatch in every forward mode a batch can carry (decode, extend, mixed, target
verify, draft extend: ``forward_decode``/``forward_extend``), the eager metadata build, the
CUDA-graph capture metadata (``init_forward_metadata_out_graph(in_capture=True)``,
``init_forward_metadata_in_graph``) and the replay metadata (``out_graph(in_capture=False)``: at
replay no forward dispatch runs), and a multi-step draft container holding several step
backends, one of them stale. For SGLang's trtllm class (the table's hooks) and for a class no
table names (the generic check: its graph metadata is checked after it is built, before any
captured kernel reads it). On a CPU a correct trtllm launch runs into its GPU kernel after the
guard: "ran" is the observation there.
"""

from __future__ import annotations

import functools

import pytest
from installed_sglang import HERE, child_answer, package_dir

pytest.importorskip("torch")
_SGLANG = package_dir()
if _SGLANG is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)
# the launch paths as 0.5.23 lays them out (out-of-graph metadata, trtllm's resolved SWA pool)
_SRT = _SGLANG / "srt" / "layers" / "attention"
if "def init_forward_metadata_out_graph" not in (_SRT / "base_attn_backend.py").read_text(
        encoding="utf-8", errors="replace"):
    pytest.skip("this SGLang release predates 0.5.23's launch paths (no out-of-graph "
                "metadata)", allow_module_level=True)


CHILD = """
import inspect, json, sys
sys.path.insert(0, {here!r})
from runtime_guard import SWAPoolMismatchError
from runtime_guard.demo import scenarios as sc
sg = sc.sglang()
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.model_executor.forward_batch_info import ForwardMode


class _Graphed(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv = model_runner.token_to_kv_pool

    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False):
        self.rows = forward_batch.batch_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.kv.get_key_buffer(layer.layer_id)
        return q

    forward_extend = forward_decode


class GraphCachedAttnBackend(_Graphed):
    pass


class GraphLiveAttnBackend(_Graphed):
    def init_forward_metadata_out_graph(self, forward_batch, in_capture=False):
        self.kv = self.token_to_kv_pool
        super().init_forward_metadata_out_graph(forward_batch, in_capture)


sg.load_plugins()  # the classes above are loaded: hooked at load
MODES = [m for m in ("DECODE", "EXTEND", "MIXED", "TARGET_VERIFY", "DRAFT_EXTEND_V2",
                     "DRAFT_EXTEND") if hasattr(ForwardMode, m)]


def outcome(call):
    try:
        call()
        return "passed"
    except SWAPoolMismatchError as err:
        return "refused: " + str(err)
    except Exception as err:  # the GPU kernel beyond the guard, on a CPU
        return "ran: " + type(err).__name__


def paths(backend, view):
    found = {{}}
    for mode in MODES:
        def launch(mode=mode):
            batch = view.batch
            batch.forward_mode = getattr(ForwardMode, mode)
            with view.swap():
                if isinstance(backend, _Graphed):  # this forward's metadata, built unchecked:
                    build = inspect.unwrap(type(backend).init_forward_metadata_out_graph)
                    build(backend, batch)  # the launch's own check is the one observed
                backend.forward(*sc.decode_args(batch, 0))
        found[mode] = outcome(launch)
    calls = {{"eager metadata": lambda: backend.init_forward_metadata(view.batch),
              "capture metadata": lambda: backend.init_forward_metadata_out_graph(
                  view.batch, in_capture=True),
              "capture in-graph": lambda: backend.init_forward_metadata_in_graph(view.batch),
              "replay metadata": lambda: backend.init_forward_metadata_out_graph(
                  view.batch, in_capture=False)}}
    for name, call in calls.items():
        def run(call=call):
            view.batch.forward_mode = ForwardMode.DECODE
            with view.swap():
                call()
        found[name] = outcome(run)
    return found


class View:
    def __init__(self, runner, target, backends):
        self.batch = sc.decode_batch(runner.token_to_kv_pool, [5, 9])
        self.target, self.backends = target, backends

    def swap(self):
        import contextlib
        stack = contextlib.ExitStack()
        for backend in self.backends:
            stack.enter_context(sc.frozen_kv_view(self.batch, self.target, backend))
        return stack


def trtllm(stale, runner):
    cls = sg.TRTLLMHAAttnBackend
    backend = sc.construct_backend(sc.pre_fix_backend_class(cls) if stale else cls, runner)
    sc.metadata(backend, [5, 9], sc.contiguous_page_table([5, 9], 4),
                sc.contiguous_page_table([5, 9], 4) % 4 if backend._swa_kv_pool else None)
    return backend


results = {{}}
for name, build in [("trtllm stale", lambda r: trtllm(True, r)),
                    ("trtllm correct", lambda r: trtllm(False, r)),
                    ("generic stale", GraphCachedAttnBackend),
                    ("generic correct", GraphLiveAttnBackend)]:
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = build(runner)
    results[name] = paths(backend, View(runner, target, [backend]))

multi_cls = sg.trtllm_mha_backend.TRTLLMHAAttnMultiStepDraftBackend
for name, stale in [("multi-step, one step stale", True), ("multi-step, all correct", False)]:
    runner, target = sc.configuration("FROZEN_KV draft")
    multi = multi_cls.__new__(multi_cls)
    multi.attn_backends = [trtllm(False, runner), trtllm(stale, runner), trtllm(False, runner)]
    view = View(runner, target, multi.attn_backends)
    results[name] = {{}}
    for path, call in [("eager metadata", lambda: multi.init_forward_metadata(view.batch)),
                       ("capture metadata", lambda: multi.init_forward_metadata_out_graph(
                           view.batch, in_capture=True)),
                       ("replay metadata", lambda: multi.init_forward_metadata_out_graph(
                           view.batch, in_capture=False))]:
        def run(call=call):
            with view.swap():
                call()
        results[name][path] = outcome(run)
print(json.dumps(results))
"""


@functools.lru_cache(maxsize=None)
def _results() -> dict:
    return child_answer(CHILD.format(here=HERE), timeout=600, SGLANG_POOLGUARD="1")


def _paths(name: str) -> list:
    return [pytest.param(name, path, id=f"{name}-{path}") for path in (
        "DECODE", "EXTEND", "MIXED", "TARGET_VERIFY", "DRAFT_EXTEND_V2", "eager metadata",
        "capture metadata", "capture in-graph", "replay metadata")]


@pytest.mark.parametrize("name, path", _paths("trtllm stale") + _paths("generic stale"))
def test_stale_state_is_refused_on_every_launch_path(name, path):
    seen = _results()[name]
    if path not in seen:
        pytest.skip(f"{path} is not a forward mode of this SGLang release")
    if name == "generic stale" and path == "capture in-graph":
        assert seen[path] == "passed"  # builds nothing here: the launch and out_graph check
        return
    assert seen[path].startswith("refused: poolguard ("), seen[path]
    assert ("PreFixTRTLLMHAAttnBackend" if name.startswith("trtllm") else
            "GraphCachedAttnBackend") in seen[path]


@pytest.mark.parametrize("name, path", _paths("trtllm correct") + _paths("generic correct"))
def test_correct_state_is_never_refused(name, path):
    seen = _results()[name].get(path, "passed")
    assert not seen.startswith("refused"), seen


@pytest.mark.parametrize("path", ["eager metadata", "capture metadata", "replay metadata"])
def test_a_multi_step_draft_with_one_stale_step_is_refused(path):
    seen = _results()["multi-step, one step stale"][path]
    assert seen.startswith("refused: poolguard (") and "PreFixTRTLLMHAAttnBackend" in seen, seen
    assert not _results()["multi-step, all correct"][path].startswith("refused")
