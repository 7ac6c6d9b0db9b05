"""The resolver codemod (``lint_rules.fixes.resolver``) called directly, on SGLang 0.5.23's own
backend sources and on hand-written classes in shapes the upstream backends do not have.

What every rewrite must give: a module that compiles, re-emits untouched code byte for byte, has
no KVP001-KVP003 left in the rewritten class, and does not change on a second run. Where the
codemod cannot prove that, it declines (``None``) and says why. Behaviour of the rewritten
hand-written classes on real SGLang pools is checked in tests/runtime/test_patched_backends.py.
"""
from __future__ import annotations

import ast
import difflib
import importlib.util
from textwrap import dedent

import libcst as cst
import pytest
from clirun import load_wheels_helper

from lint_rules.engine import lint_source
from lint_rules.fixes.resolver import HAZARDS, Declined, resolver_fix, rewrite
from lint_rules.options import Options

UPSTREAM = {  # four of the six 0.5.23 backends that still decide SWA once in __init__
    "layers/attention/torch_native_backend.py": "TorchNativeAttnBackend",
    "layers/attention/triton_backend.py": "TritonAttnBackend",
    "layers/attention/flashattention_backend.py": "FlashAttentionBackend",
    "layers/attention/intel_amx_backend.py": "IntelAMXAttnBackend",
}
# the two that also copy the runner's model flag (``is_hybrid_swa``, rel5 O1): XPU keeps it as
# the model's flag beside the resolved pool; Ascend caches the pool's mapping under it: declined
XPU = ("layers/attention/xpu_backend.py", "XPUAttentionBackend")
ASCEND = ("hardware_backend/npu/attention/ascend_backend.py", "AscendAttnBackend")


@pytest.fixture(scope="module")
def srt():
    return load_wheels_helper().source_tree("0.5.23") / "sglang" / "srt"


def _hazards_in(code: str, name: str, options: Options = Options()) -> list:
    spans = [(n.lineno, n.end_lineno) for n in ast.walk(ast.parse(code))
             if isinstance(n, ast.ClassDef) and n.name == name]
    return [f for f in lint_source(code, codes=HAZARDS, options=options)
            if any(a <= f.line <= b for a, b in spans)]


def _changed_lines(old: str, new: str) -> set:
    """Old-file lines the diff removes or replaces."""
    lines = set()
    matcher = difflib.SequenceMatcher(a=old.splitlines(True), b=new.splitlines(True),
                                      autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag != "equal":
            lines.update(range(i1 + 1, i2 + 1))
    return lines


@pytest.mark.parametrize("path", sorted(UPSTREAM), ids=lambda p: p.rsplit("/", 1)[-1])
def test_upstream_backend_becomes_the_resolver_pattern(srt, path):
    source = (srt / path).read_text(encoding="utf-8")
    name = UPSTREAM[path]
    assert _hazards_in(source, name)  # the hazard is there before
    fixed = resolver_fix(cst.parse_module(source), name, frozenset(HAZARDS), Options())
    assert fixed is not None
    code = fixed.code
    compile(code, path, "exec")
    assert _hazards_in(code, name) == []
    assert "def _resolve_swa_kv_pool(model_runner):" in code
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)" in code
    assert "def use_sliding_window_kv_pool(self) -> bool:" in code
    assert "self.use_sliding_window_kv_pool and" not in code
    again = resolver_fix(fixed, name, frozenset(HAZARDS), Options())
    assert again is not None and again.code == code  # a second run changes nothing
    # Only the class changes: every line outside it is the original, byte for byte.
    cls = next(n for n in ast.walk(ast.parse(source)) if getattr(n, "name", None) == name)
    assert all(cls.lineno <= line <= cls.end_lineno for line in _changed_lines(source, code))


def test_xpu_keeps_the_model_flag_beside_the_resolved_pool(srt):
    """XPU's pool test becomes the resolved pool (as fa3's); its copy of the runner's model flag
    ``is_hybrid_swa`` stays the model's flag, also true for a FROZEN_KV draft whose resolved pool
    is borrowed; the gate on it is left as it is, and a second run changes nothing."""
    path, name = XPU
    source = (srt / path).read_text(encoding="utf-8")
    code = rewrite(cst.parse_module(source), name, Options()).code
    compile(code, path, "exec")
    assert "self.is_hybrid_swa = model_runner.is_hybrid_swa or (\n" in code
    assert "            and self._swa_kv_pool is not model_runner.token_to_kv_pool\n" in code
    assert code.index("self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)") < \
        code.index("self.is_hybrid_swa = model_runner.is_hybrid_swa or (")
    assert code.count("        if self.is_hybrid_swa:\n") == source.count(
        "        if self.is_hybrid_swa:\n") == 1  # the model's gate, as it was
    assert "self.use_sliding_window_kv_pool" not in code.replace(
        "def use_sliding_window_kv_pool(self)", "")
    left = {f.message.split(",")[0] for f in _hazards_in(code, name)}
    assert all("self.is_hybrid_swa" in text for text in left), left
    with pytest.raises(Declined, match="is_hybrid_swa stays the runner's model flag"):
        rewrite(cst.parse_module(code), name, Options())


def test_ascend_is_declined_for_the_mapping_cached_under_the_model_flag(srt):
    """Ascend stores ``full_to_swa_index_mapping`` in ``__init__`` under ``is_hybrid_swa``: a
    FROZEN_KV draft would keep its own pool's (none); the hand fix reads it per forward."""
    path, name = ASCEND
    module = cst.parse_module((srt / path).read_text(encoding="utf-8"))
    assert resolver_fix(module, name, frozenset(HAZARDS), Options()) is None
    with pytest.raises(Declined, match=r"self.full_to_swa_index_mapping, self.sliding_window_size "
                                       r"set in __init__ only under the runner's model flag "
                                       r"self.is_hybrid_swa"):
        rewrite(module, name, Options())


def test_flag_test_is_lifted_into_the_resolver(srt):
    """TorchNative's own SWA test (an SWAKVPool with SWA layers) is the resolver's test."""
    source = (srt / "layers/attention/torch_native_backend.py").read_text(encoding="utf-8")
    code = rewrite(cst.parse_module(source), "TorchNativeAttnBackend", Options()).code
    assert code.count("if isinstance(pool, SWAKVPool) and pool.swa_layer_nums > 0:") == 2
    assert "self._swa_kv_pool.translate_loc_from_full_to_swa(" in code


def test_cached_whole_pool_is_declined(srt):
    """MiniMax caches the pool itself (``self.kv_pool``): not an SWA flag, nothing to resolve."""
    source = (srt / "layers/attention/minimax_sparse_backend.py").read_text(encoding="utf-8")
    module = cst.parse_module(source)
    assert resolver_fix(module, "MiniMaxSparseAttnBackend", frozenset({"KVP001"}),
                        Options()) is None
    with pytest.raises(Declined, match="not an SWA flag"):
        rewrite(module, "MiniMaxSparseAttnBackend", Options())


def test_resolved_mirror_is_left_alone(srt):
    """aiter resolves its pool through the allocator and mirrors it (with a layer count): its
    gates are no finding (rel5 F1), so the rewrite has nothing to change."""
    source = (srt / "layers/attention/aiter_backend.py").read_text(encoding="utf-8")
    gates = [f for f in lint_source(source)
             if f.code == "KVP003" and "use_sliding_window_kv_pool" in f.message]
    assert gates == []
    assert rewrite(cst.parse_module(source), "AiterAttnBackend", Options()).code == source


KEPT_MIRROR = dedent("""\
    class KeptMirrorAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = pool if isinstance(pool, SWAKVPool) else None
            self.use_sliding_window_kv_pool = (
                self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
            )

        def init_forward_metadata(self, forward_batch):
            if self.use_sliding_window_kv_pool:
                forward_batch.swa = True
""")


def test_mirror_with_an_extra_condition_is_declined():
    """A mirror of a kept pool *and* a layer count: its gates cannot become the pool test
    without changing behaviour."""
    with pytest.raises(Declined, match="not the pool test"):
        rewrite(cst.parse_module(KEPT_MIRROR), "KeptMirrorAttnBackend", Options())


# -- hand-written shapes ------------------------------------------------------------------------
HELPER_FLAG = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class HelperAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self._init_swa(model_runner)  # the flag is decided in a helper

        def _init_swa(self, runner):
            pool = runner.token_to_kv_pool
            self.has_swa = isinstance(pool, SWAKVPool)

        def init_forward_metadata(self, forward_batch):
            if self.has_swa:
                self.loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                    forward_batch.out_cache_loc
                )
            else:
                self.loc = None
""")

HELPER_WITHOUT_RUNNER = dedent("""\
    class NoRunnerAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self._init_swa()

        def _init_swa(self):
            self.has_swa = isinstance(self.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            return 1 if self.has_swa else 0
""")

OTHER_POOL_NAME = dedent("""\
    class RenamedPoolAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.pool_ref = self._pick_pool(model_runner)
            # decided from the allocator's type: a second source of truth
            self.is_swa = isinstance(
                model_runner.token_to_kv_pool_allocator, SWATokenToKVPoolAllocator
            )

        @staticmethod
        def _pick_pool(model_runner):
            return model_runner.token_to_kv_pool_allocator.get_kvcache()

        def forward_decode(self, q, k, v, layer, forward_batch):
            return self.pool_ref.layers_mapping if self.is_swa else None
""")

SUBCLASS_GATES = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class BaseSwaAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.swa_on = isinstance(model_runner.token_to_kv_pool, SWAKVPool)


    class ChildAttnBackend(BaseSwaAttnBackend):
        def forward_decode(self, q, k, v, layer, forward_batch):
            if not self.swa_on:
                return None
            return self.token_to_kv_pool.layers_mapping[layer.layer_id]

        def forward_extend(self, q, k, v, layer, forward_batch):
            return self.swa_on and self.token_to_kv_pool.layers_mapping[layer.layer_id][1]
""")

ALLOCATOR_FLAG_NO_IMPORT = dedent("""\
    from sglang.srt.mem_cache.allocator.swa import SWATokenToKVPoolAllocator


    class AllocFlagAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.swa = isinstance(
                model_runner.token_to_kv_pool_allocator, SWATokenToKVPoolAllocator
            )

        def forward_decode(self, q, k, v, layer, forward_batch):
            return "swa" if self.swa else "full"
""")


def _fix(source: str, name: str) -> str:
    return rewrite(cst.parse_module(source), name, Options()).code


def test_flag_stored_by_a_helper_with_the_runner():
    code = _fix(HELPER_FLAG, "HelperAttnBackend")
    assert "        self._swa_kv_pool = self._resolve_swa_kv_pool(runner)\n" in code
    assert "if isinstance(pool, SWAKVPool):" in code  # the alias `pool` lifted onto the pool
    assert "if self._swa_kv_pool is not None:" in code
    assert "self._swa_kv_pool.translate_loc_from_full_to_swa(" in code
    assert "def has_swa(self) -> bool:" in code
    assert "pool = runner.token_to_kv_pool" not in code  # read only by the dropped store
    assert "self._init_swa(model_runner)  # the flag is decided in a helper" in code
    assert _hazards_in(code, "HelperAttnBackend") == []


def test_helper_without_a_runner_is_declined():
    with pytest.raises(Declined, match="takes no model runner"):
        _fix(HELPER_WITHOUT_RUNNER, "NoRunnerAttnBackend")


def test_pool_cached_under_another_name_is_the_pool():
    code = _fix(OTHER_POOL_NAME, "RenamedPoolAttnBackend")
    assert "_resolve_swa_kv_pool" not in code  # the class resolves already: no second one
    assert "return self.pool_ref.layers_mapping if self.pool_ref is not None else None" in code
    assert "def is_swa(self) -> bool:\n" in code and "return self.pool_ref is not None" in code
    assert "# decided from the allocator's type" not in code  # went with its statement
    assert _hazards_in(code, "RenamedPoolAttnBackend") == []


def test_gates_in_a_subclass_fix_the_base_that_stores_the_flag():
    code = _fix(SUBCLASS_GATES, "ChildAttnBackend")
    assert "if self._swa_kv_pool is None:\n            return None" in code
    assert ("return self._swa_kv_pool is not None and "
            "self._swa_kv_pool.layers_mapping[layer.layer_id][1]") in code
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)" in code
    for name in ("ChildAttnBackend", "BaseSwaAttnBackend"):
        assert _hazards_in(code, name) == []
    assert _fix(code, "BaseSwaAttnBackend") == code


def test_unliftable_flag_gets_the_default_test_and_its_import():
    code = _fix(ALLOCATOR_FLAG_NO_IMPORT, "AllocFlagAttnBackend")
    assert "from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool\n" in code
    assert code.count("if isinstance(pool, SWAKVPool):") == 2
    compile(code, "x.py", "exec")


def test_line_endings_and_comments_survive():
    crlf = HELPER_FLAG.replace("\n", "\r\n")
    code = _fix(crlf, "HelperAttnBackend")
    assert "\n" not in code.replace("\r\n", "")
    assert code == _fix(HELPER_FLAG, "HelperAttnBackend").replace("\n", "\r\n")


@pytest.mark.parametrize("source, reason", [
    (HELPER_FLAG.replace("    def __init__", "    __slots__ = ('has_swa',)\n\n    def __init__"),
     "__slots__"),
    (HELPER_FLAG.replace("    def __init__", "    has_swa = False\n\n    def __init__"),
     "class attribute"),
    (HELPER_FLAG + "\n\ndef reset(backend):\n    backend.has_swa = False\n", "more than once"),
], ids=["slots", "class-default", "written-from-outside"])
def test_unsafe_shapes_are_declined(source, reason):
    with pytest.raises(Declined, match=reason):
        _fix(source, "HelperAttnBackend")


RUNNER_FLAG_FIRST = dedent("""\
    class HybridAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.is_hybrid_swa = model_runner.is_hybrid_swa
            if self.is_hybrid_swa:  # the runner's flag, blind to the pool swap
                self.mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
            self.has_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            return self.mapping[q] if self.is_hybrid_swa and self.has_swa else q
""")


def test_runner_flag_copy_is_declined():
    """Ascend's shape: the runner's model flag copied beside an ``SWAKVPool`` flag, with pool
    state cached under it (a FROZEN_KV draft keeps its own pool's); or the copy alone, with no
    pool test to resolve from (the model's flag is true for pools no type test accepts)."""
    with pytest.raises(Declined, match="self.mapping set in __init__ only under the runner's"):
        _fix(RUNNER_FLAG_FIRST, "HybridAttnBackend")
    alone = RUNNER_FLAG_FIRST.replace(" and self.has_swa", "").replace(
        "        self.has_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)\n", "")
    with pytest.raises(Declined, match="is_hybrid_swa copies the runner's model flag"):
        _fix(alone, "HybridAttnBackend")
    computed = MODEL_FLAG_BESIDE.replace("model_runner.is_hybrid_swa\n",
                                         "model_runner.is_hybrid_swa and self.on\n")
    with pytest.raises(Declined):
        _fix(computed, "ModelFlagAttnBackend")


# XPU's shape, written three other ways: the copy after the pool flag, a gate mixing both,
# the copy read through a local
MODEL_FLAG_BESIDE = dedent("""\
    class ModelFlagAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.use_swa_pool = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
            self.hybrid = model_runner.is_hybrid_swa

        def init_forward_metadata(self, forward_batch):
            self.loc = None
            if self.use_swa_pool:
                self.loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                    forward_batch.out_cache_loc)
            model = self.hybrid
            self.local = "swa-table" if model and not self.use_swa_pool else "full-table"
""")


def test_model_flag_copy_beside_a_pool_flag_is_kept_as_the_model_flag():
    code = _fix(MODEL_FLAG_BESIDE, "ModelFlagAttnBackend")
    compile(code, "x.py", "exec")
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)\n" \
        "        self.hybrid = model_runner.is_hybrid_swa or (\n" in code
    assert "model = self.hybrid\n" in code  # the model's flag, read as it was
    assert "if model and self._swa_kv_pool is None else" in code
    assert "if self._swa_kv_pool is not None:" in code
    with pytest.raises(Declined, match="self.hybrid stays the runner's model flag"):
        _fix(code, "ModelFlagAttnBackend")


def test_rewritten_model_flag_shape_changes_only_the_frozen_kv_draft():
    """On real SGLang pools, with the runner's model flag as SGLang sets it (hybrid when the
    runner's own pool is an SWA pool) and also with it set the other way (a model flag no pool
    test equals, DeepSeek-V4's case): target, non-SWA model and EAGLE draft keep every value
    and decision; only the FROZEN_KV draft changes, to the target's pool."""
    import torch

    from runtime_guard.demo import scenarios as sc

    name = "ModelFlagAttnBackend"
    fixed = _classes(_fix(MODEL_FLAG_BESIDE, name))[name]
    original = _classes(MODEL_FLAG_BESIDE)[name]
    for kind in sc.CONFIGURATIONS:
        for model_flag in (True, False):
            runner, reads = sc.configuration(kind)
            runner.is_hybrid_swa = model_flag
            batch = sc.decode_batch(runner.token_to_kv_pool, [5, 9])
            batch.out_cache_loc = torch.tensor([3, 7])
            seen = []
            for cls in (fixed, original):
                backend = cls(runner)
                with sc.frozen_kv_view(batch, reads, backend):
                    backend.init_forward_metadata(batch)
                loc = None if backend.loc is None else backend.loc.tolist()
                seen.append((backend.hybrid, backend.use_swa_pool, loc, backend.local))
            if kind != FROZEN:
                assert seen[0] == seen[1], (kind, model_flag)
                continue
            want = reads.translate_loc_from_full_to_swa(batch.out_cache_loc).tolist()
            assert seen[0] == (True, True, want, "full-table"), model_flag
            assert seen[1] == (model_flag, False, None,
                               "swa-table" if model_flag else "full-table"), model_flag


def test_flags_testing_the_pool_differently_are_declined():
    """One resolved pool cannot be both an ``SWAKVPool`` test and a ``BaseSWAKVPool`` one."""
    source = dedent("""\
        class TwoTestsAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.token_to_kv_pool = model_runner.token_to_kv_pool
                self.has_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                self.any_swa = isinstance(model_runner.token_to_kv_pool, BaseSWAKVPool)

            def forward_decode(self, q, k, v, layer, forward_batch):
                return q if self.has_swa else (k if self.any_swa else v)
    """)
    with pytest.raises(Declined, match="has_swa and self.any_swa test the pool differently"):
        _fix(source, "TwoTestsAttnBackend")


def test_runner_rebound_before_the_flag_is_declined():
    source = HELPER_FLAG.replace(
        "        self.has_swa = isinstance(pool, SWAKVPool)\n",
        "        self.has_swa = isinstance(pool, SWAKVPool)\n        runner = None\n")
    with pytest.raises(Declined, match="rebinds runner"):
        _fix(source, "HelperAttnBackend")


def test_a_class_without_hazards_is_returned_unchanged():
    module = cst.parse_module(HELPER_FLAG)
    fixed = rewrite(module, "HelperAttnBackend", Options())
    assert rewrite(fixed, "HelperAttnBackend", Options()) is fixed


# -- the rewritten shapes on real SGLang pools -------------------------------------------------
def _classes(code: str) -> dict:
    """Execute a shape with SGLang's real pool and allocator classes in scope."""
    if importlib.util.find_spec("sglang") is None or importlib.util.find_spec("torch") is None:
        pytest.skip("needs SGLang and torch")
    from runtime_guard.demo import scenarios as sc

    sg = sc.sglang()  # SGLang's CPU-safe import
    namespace = {"__name__": "shape", "AttentionBackend": type("AttentionBackend", (), {}),
                 "SWAKVPool": sg.SWAKVPool,
                 "SWATokenToKVPoolAllocator": sg.SWATokenToKVPoolAllocator}
    exec(compile(code, "shape.py", "exec"), namespace)
    return namespace


def _expected_pool(kind: str, runner, reads):
    """design.md §3: the active SWA pool; None for a draft with its own pool and for a
    non-SWA model; the allocator's (the target's) pool for a FROZEN_KV draft."""
    if kind == "FROZEN_KV draft":
        return runner.token_to_kv_pool_allocator.get_kvcache()
    return reads if kind == "SWA target" else None


FROZEN, EAGLE = "FROZEN_KV draft", "EAGLE draft, own pool"


@pytest.mark.parametrize("source, name, flag, wrong_before", [
    (HELPER_FLAG, "HelperAttnBackend", "has_swa", {FROZEN}),
    (SUBCLASS_GATES, "ChildAttnBackend", "swa_on", {FROZEN}),
    # the allocator is shared with the target: its type says SWA for an EAGLE draft too
    (ALLOCATOR_FLAG_NO_IMPORT, "AllocFlagAttnBackend", "swa", {EAGLE}),
], ids=["helper", "subclass", "allocator-flag"])
def test_rewritten_shapes_follow_the_pool_their_launches_read(source, name, flag, wrong_before):
    """In every configuration the rewritten class holds the pool design §3 resolves; the
    released shape agrees with it everywhere except where it had the bug."""
    from runtime_guard.demo import scenarios as sc

    fixed = _classes(_fix(source, name))[name]
    original = _classes(source)[name]
    for kind in sc.CONFIGURATIONS:
        runner, reads = sc.configuration(kind)
        # the runner's own model config: hybrid when its own pool is an SWA pool
        runner.is_hybrid_swa = type(runner.token_to_kv_pool).__name__ == "SWAKVPool"
        backend = fixed(runner)
        expected = _expected_pool(kind, runner, reads)
        assert backend._swa_kv_pool is expected, kind
        assert getattr(backend, flag) is (expected is not None), kind
        before = getattr(original(runner), flag)
        assert (before == getattr(backend, flag)) is (kind not in wrong_before), kind


def test_rewritten_helper_shape_translates_with_the_target_pool():
    """The FROZEN_KV draft's metadata build under SGLang's own target view: the SWA write
    locations are the target pool's translation (the released shape writes none)."""
    import torch

    from runtime_guard.demo import scenarios as sc

    fixed = _classes(_fix(HELPER_FLAG, "HelperAttnBackend"))["HelperAttnBackend"]
    original = _classes(HELPER_FLAG)["HelperAttnBackend"]
    runner, target = sc.configuration("FROZEN_KV draft")
    batch = sc.decode_batch(runner.token_to_kv_pool, [5, 9])
    batch.out_cache_loc = torch.tensor([3, 7])
    seen = []
    for cls in (fixed, original):
        backend = cls(runner)
        with sc.frozen_kv_view(batch, target, backend):
            backend.init_forward_metadata(batch)
        seen.append(backend.loc)
    assert torch.equal(seen[0], target.translate_loc_from_full_to_swa(batch.out_cache_loc))
    assert seen[1] is None


def test_a_backend_nested_in_a_function_is_reached():
    nested = "def build():\n" + "".join("    " + line if line.strip() else line
                                        for line in HELPER_FLAG.splitlines(True))
    code = _fix(nested, "HelperAttnBackend")
    assert "            self._swa_kv_pool = self._resolve_swa_kv_pool(runner)\n" in code
    assert "            if self._swa_kv_pool is not None:\n" in code
    compile(code, "x.py", "exec")


@pytest.mark.parametrize("source, reason", [
    (HELPER_FLAG.replace("self.has_swa = isinstance(pool, SWAKVPool)",
                         "self.has_swa = isinstance(pool, SWAKVPool) and not runner.disable"),
     "also depends on"),
    (HELPER_FLAG.replace("self.has_swa = isinstance(pool, SWAKVPool)",
                         "self.has_swa = isinstance(pool, SWAKVPool) and self.enabled"),
     "also depends on"),
    (HELPER_FLAG.replace("self.has_swa = isinstance(pool, SWAKVPool)",
                         "n = 1; self.has_swa = isinstance(pool, SWAKVPool)"),
     "shares its line"),
    (HELPER_FLAG + "\n\ndef drop(backend):\n    del backend.has_swa\n", "deleted"),
    (HELPER_FLAG.replace("    def init_forward_metadata",
                         "    def _resolve_swa_kv_pool(self):\n        return None\n\n"
                         "    def init_forward_metadata"),
     "keeps no pool"),
    (HELPER_FLAG.replace("self.has_swa = isinstance(pool, SWAKVPool)",
                         "self.has_swa = isinstance(pool, SWAKVPool) or isinstance("
                         "self.token_to_kv_pool, SWAKVPool)"),
     "more than one pool"),
], ids=["runner-condition", "self-condition", "semicolon", "del", "foreign-resolver",
        "two-pools"])
def test_hostile_shapes_are_declined(source, reason):
    """Shapes where the rewrite would drop a condition, leave a write to the new property, or
    call a resolver whose meaning it cannot see."""
    with pytest.raises(Declined, match=reason):
        _fix(source, "HelperAttnBackend")


def test_annotated_flag_store_and_trailing_comment():
    source = HELPER_FLAG.replace("self.has_swa = isinstance(pool, SWAKVPool)",
                                 "self.has_swa: bool = isinstance(pool, SWAKVPool)  # once")
    code = _fix(source, "HelperAttnBackend")
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(runner)  # once\n" in code
    assert _hazards_in(code, "HelperAttnBackend") == []
