"""``poolguard lint --fix --unsafe-fixes`` on the unpacked SGLang 0.5.23 tree (the
``upstream_patch`` fixture, one CLI run per session): what it changes, that it compiles, that the
lint finds no KVP001-KVP003 left in the classes it rewrote, and that a second run changes nothing.
Imports and runtime behaviour of the result: tests/runtime/test_patched_backends.py.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lint_rules.rules._vocab import is_swa_word

SRT = "sglang/srt/"
# The six 0.5.23 backends that decide SWA once in __init__ (the issue): five are rewritten. XPU
# also copies the runner's model flag (is_hybrid_swa): it stays the model's flag, ORed with a
# FROZEN_KV draft's borrowed pool, and its gate is left as it is. Ascend caches the pool's
# mapping in __init__ under that flag: declined, findings kept.
SIX = {
    "layers/attention/triton_backend.py": "TritonAttnBackend",
    "layers/attention/flashattention_backend.py": "FlashAttentionBackend",
    "layers/attention/torch_native_backend.py": "TorchNativeAttnBackend",
    "layers/attention/intel_amx_backend.py": "IntelAMXAttnBackend",
    "layers/attention/xpu_backend.py": "XPUAttentionBackend",
}
ASCEND = "hardware_backend/npu/attention/ascend_backend.py"
# the model's flag kept by design in a rewritten class: the lint still names it
KEPT_MODEL_FLAG = re.compile(r"\bself\.is_hybrid_swa\b")
HAZARDS = {"KVP001", "KVP002", "KVP003"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@pytest.fixture(scope="module")
def patch(upstream_patch):
    assert upstream_patch.run.returncode in (0, 1), upstream_patch.run.stderr
    assert "Traceback" not in upstream_patch.run.stderr
    return upstream_patch


def test_the_six_backends_are_rewritten(patch):
    for path, name in SIX.items():
        assert SRT + path in patch.changed, path
        assert name in patch.rewritten_classes(SRT + path)


def test_every_changed_file_compiles(patch):
    assert patch.changed
    for path, (_, new) in patch.changed.items():
        compile(new, path, "exec")


def test_no_hazard_is_left_in_the_rewritten_classes(patch):
    """The lint of the fixed tree (package mode, as users run it) inside every class the patch
    touched: no SWA hazard (KVP001-KVP003) is left. Package mode also sees pool state that is not
    SWA state (FlashAttention's ``_kv_shard_pool`` from kv_shard_hooks.get_kv_shard_pool, a
    page-interleave pool): the resolver does not claim it, so such a finding may stay, but only
    on a line the patch left as it was and that names nothing SWA."""
    rows = json.loads(patch.second_run().stdout)
    for path, (old, new) in patch.changed.items():
        classes = patch.class_spans(path)
        lines, before = new.splitlines(), set(old.splitlines())
        left = [row for row in rows if row["code"] in HAZARDS and row["path"].endswith(path)
                and any(a <= row["line"] <= b for name, (a, b) in classes.items()
                        if name in patch.rewritten_classes(path))]
        swa_left = [row for row in left if not KEPT_MODEL_FLAG.search(row["message"]) and (
                    lines[row["line"] - 1] not in before
                    or any(is_swa_word(word) for word in IDENTIFIER.findall(
                        lines[row["line"] - 1])))]
        assert swa_left == [], swa_left


def test_a_second_run_changes_nothing(patch):
    patch.second_run()
    for path, (_, new) in patch.changed.items():
        assert (patch.tree / path).read_text(encoding="utf-8") == new
    unchanged = patch.original / "sglang/srt/layers/attention/aiter_backend.py"
    assert (patch.tree / unchanged.relative_to(patch.original)).read_bytes() == \
        unchanged.read_bytes()


def test_declined_classes_keep_their_findings(patch):
    """MiniMax caches the whole pool: the codemod declines it and its finding stays. aiter
    already resolves its pool through the allocator (its flag's gates are no finding): the
    codemod leaves it as it is."""
    rows = json.loads(patch.second_run().stdout)
    kept = {(row["path"].rsplit("/", 1)[-1], row["code"]) for row in rows}
    assert ("minimax_sparse_backend.py", "KVP001") in kept
    assert ("aiter_backend.py", "KVP003") not in kept
    assert not any(path.endswith(("minimax_sparse_backend.py", "aiter_backend.py"))
                   for path in patch.changed)
    # the pool's mapping cached under the runner's model flag: declined, said why, kept
    assert SRT + ASCEND not in patch.changed
    assert ("ascend_backend.py", "KVP003") in kept
    assert ("AscendAttnBackend not rewritten by --unsafe-fixes: self.full_to_swa_index_mapping, "
            "self.sliding_window_size set in __init__ only under the runner's model flag "
            "self.is_hybrid_swa") in patch.run.stderr
    # XPU's model flag is kept (its gate reads it as before): the finding stays, with no fix
    xpu = [row for row in rows if row["path"].endswith("xpu_backend.py")]
    assert xpu and all(KEPT_MODEL_FLAG.search(row["message"]) for row in xpu)
    assert all(fix["applicability"] == "declined" for row in xpu for fix in row["fixes"])


def test_the_diff_is_kept_as_an_artifact(patch):
    text = patch.diff_path.read_text(encoding="utf-8")
    for path in patch.changed:
        assert f"+++ b/python/{path}" in text
    assert not patch.diff_path.is_relative_to(patch.repo_root())


def test_readme_diffstat_is_the_measured_one(patch):
    """The README's table of the patch per file is what this run changed."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- BEGIN upstream-patch -->", 1)[1].split("<!-- END", 1)[0]
    rows = re.findall(r"^\| `([^`]+)`[^|]* \| `\w+` \| (\d+) \| \+(\d+) −(\d+) \|$", block, re.M)
    shown = {SRT + path: (int(h), int(a), int(r)) for path, h, a, r in rows}
    assert shown == patch.diffstat()
    total = re.search(r"\*\*(\d+) files\*\* \| \| \*\*(\d+)\*\* \| \*\*\+(\d+) −(\d+)\*\*", block)
    sums = [sum(column) for column in zip(*patch.diffstat().values())]
    assert [int(x) for x in total.groups()] == [len(patch.changed), *sums]
