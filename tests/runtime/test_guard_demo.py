"""``runtime_guard.demo``: the replay ``poolguard demo`` shows, on real SGLang pools."""

from __future__ import annotations

import importlib.util

import pytest

from runtime_guard.config import GuardConfig

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)


def test_replay_report_shows_the_crash_the_catch_and_the_fix():
    from runtime_guard import hooks
    from runtime_guard.demo import replay_frozen_kv_swap

    before = hooks.configure(GuardConfig(mode="check", action="log"))
    try:
        report = replay_frozen_kv_swap()
        # the demo leaves the guard as it found it
        assert hooks.configure(before) == GuardConfig(mode="check", action="log")
    finally:
        hooks.configure(before)
    assert "outside the KV buffer's 9 pages" in report
    assert ("SWAPoolMismatchError: poolguard (live: this launch reads it): "
            "PreFixTRTLLMHAAttnBackend (draft") in report
    assert "the guard lets layers [0, 1, 2, 3] launch" in report


def test_torch_native_end_to_end_latent_on_the_real_batch_live_on_a_writing_one():
    """Real TorchNativeAttnBackend: __init__, init_forward_metadata and forward_decode. On the
    batch SGLang's FROZEN_KV worker builds (no KV write) the stale flag is latent: the output
    is correct and check only logs; given write slots it is live and check refuses."""
    from runtime_guard import hooks
    from runtime_guard.demo import torch_native

    if not torch_native.keeps_swa_state():
        pytest.skip("TorchNative keeps no SWA state before SGLang 0.5.13")
    before = hooks.configure(GuardConfig(mode="bounds", action="log"))
    try:
        result = torch_native.replay()
        assert hooks.configure(before) == GuardConfig(mode="bounds", action="log")
    finally:
        hooks.configure(before)
    seen = result.outcomes
    correct = "output equals the reference"
    assert seen["real batch, no guard"] == seen["real batch, SGLANG_POOLGUARD=1"] == correct
    assert seen["real batch, SGLANG_ENABLE_ASYNC_ASSERT=1"] == correct
    assert seen["real batch, SGLANG_POOLGUARD=1 SGLANG_INVARIANT_CHECK=2"].startswith(
        "SWAPoolMismatchError: poolguard (latent: TorchNativeAttnBackend reads this state only")
    # Writing through the stale flag, SGLang's own SWAKVPool.set_kv_buffer trips; its aids
    # (write-side probes, invariant checks) do not look at this state.
    for aid in ("no guard", "SGLANG_ENABLE_ASYNC_ASSERT=1", "SGLANG_INVARIANT_CHECK=2"):
        assert seen[f"writing batch, {aid}"].startswith("AssertionError: swa_memory_pool.py:")
    for mode in ("1", "bounds"):
        assert seen[f"writing batch, SGLANG_POOLGUARD={mode}"].startswith(
            "SWAPoolMismatchError: poolguard (live: this launch reads it): "
            "TorchNativeAttnBackend (draft, speculative algorithm FROZEN_KV_MTP)")
    assert result.fixed_matches and result.max_abs_diff == 0.0
