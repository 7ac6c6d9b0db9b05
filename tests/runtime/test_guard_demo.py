"""``runtime_guard.demo``: the replay ``poolguard demo`` shows, on real SGLang pools."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)


def test_replay_report_shows_the_crash_the_catch_and_the_fix():
    from runtime_guard import hooks
    from runtime_guard.demo import replay_frozen_kv_swap

    before = hooks._config
    report = replay_frozen_kv_swap()
    assert hooks._config is before  # the demo leaves the guard as it found it
    assert "outside the KV buffer's 9 pages" in report
    assert "SWAPoolMismatchError: poolguard: PreFixTRTLLMHAAttnBackend (draft" in report
    assert "the guard lets layers [0, 1, 2, 3] launch" in report
