"""The runner's ``KVIndexTranslator`` on SGLang 0.5.23's own sources, linted as a package (the
runner module tells the index the translator is built once from the runner's pool).

SGLang requires every backend to carry the runner's one translator:
``KVIndexTranslator.bind_and_verify_backends`` asserts ``backend.kv_index_translator is self`` and
tells a wrapper to forward its inner backend's copy. So a wrapper forwarding it
(``self.kv_index_translator = primary.kv_index_translator``) and EAGLE's multi-step draft
wrappers (no backend base: FROZEN_KV MTP never swaps them) are no findings (rel5 F3, F5); a
backend by lineage keeping the runner's translator is (rel5 D2), and its remedy must not
contradict that assert: the translator has to be swapped with the pool, and no class rewrite
is offered for it.
"""
from __future__ import annotations

import json
import shutil

import pytest
from clirun import load_wheels_helper, poolguard

SRT = "sglang/srt/"
FILES = ("model_executor/model_runner.py", "mem_cache/kv_index_translator.py",
         "layers/attention/triton_backend.py", "layers/attention/tbo_backend.py",
         "layers/attention/dots_hybrid_backend.py", "layers/attention/hybrid_attn_backend.py")
TRANSLATOR = "self.kv_index_translator"


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    source = load_wheels_helper().source_tree("0.5.23")
    root = tmp_path_factory.mktemp("translator")
    for path in FILES:
        target = root / SRT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / SRT / path, target)
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "sglang", cwd=root)
    found = json.loads(done.stdout)
    assert any(r["path"].endswith("triton_backend.py") for r in found)  # the lint ran there
    return [r for r in found if r["message"].startswith(TRANSLATOR)]


def _at(rows, name: str) -> set:
    return {r["line"] for r in rows if r["path"].endswith(name)}


def test_a_wrapper_forwarding_its_inner_backends_translator_is_no_finding(rows):
    assert _at(rows, "tbo_backend.py") == set()  # self.kv_index_translator = primary....
    assert _at(rows, "dots_hybrid_backend.py") == set()  # = backend... / swa_backend...


def test_a_multi_step_draft_wrapper_with_no_backend_base_is_no_finding(rows):
    assert 2551 not in _at(rows, "triton_backend.py")  # class TritonMultiStepDraftBackend:


def test_a_backend_keeping_the_runners_translator_is_told_to_swap_it_with_the_pool(rows):
    kept = [r for r in rows if r["path"].endswith(("triton_backend.py", "hybrid_attn_backend.py"))]
    assert {(r["path"].rsplit("/", 1)[-1], r["line"]) for r in kept} == {
        ("triton_backend.py", 226), ("hybrid_attn_backend.py", 40)}
    for row in kept:
        assert "allocator" not in row["message"], row  # bind_and_verify_backends would assert
        assert "swap it too in frozen_kv_mtp_utils" in row["message"], row  # where the pool is
        assert len(row["message"]) <= 130, row
        assert all(f["applicability"] != "unsafe" for f in row["fixes"]), row
