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
    assert "SWAPoolMismatchError: poolguard: PreFixTRTLLMHAAttnBackend (draft" in report
    assert "the guard lets layers [0, 1, 2, 3] launch" in report


def test_torch_native_end_to_end_crash_catch_and_fix():
    """Real TorchNativeAttnBackend: __init__, init_forward_metadata and forward_decode."""
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
    # Unguarded, SGLang's own SWAKVPool.set_kv_buffer trips on the missing SWA write slot.
    assert result.unguarded.startswith("AssertionError: swa_memory_pool.py:")
    assert "set_kv_buffer" in result.unguarded
    assert result.guarded.startswith("SWAPoolMismatchError: poolguard: TorchNativeAttnBackend "
                                     "(draft, speculative algorithm FROZEN_KV_MTP)")
    assert result.fixed_matches and result.max_abs_diff == 0.0
