"""Fixtures for the runtime-guard tests: hook configuration restored after every test."""

from __future__ import annotations

import functools

import pytest


@pytest.fixture
def guard(monkeypatch):
    """Configure the hooks' mode/action/fix for one test; the previous state comes back after."""
    from runtime_guard import hooks
    from runtime_guard.config import GuardConfig

    monkeypatch.setattr(hooks, "_config", hooks._config)
    monkeypatch.setattr(hooks, "_logged_sites", set())

    def configure(mode: str = "check", action: str = "raise", fix: bool = False):
        hooks.configure(GuardConfig(mode=mode, action=action, fix=fix))
        return hooks

    return configure


@pytest.fixture
def hooked(monkeypatch, guard):
    """The generic check on SGLang's ``AttentionBackend.forward`` and on the loaded overrides
    of it that bypass it (``generic.dispatch_overrides``), as the plugin registers it."""
    from runtime_guard import generic
    from runtime_guard.demo import scenarios as sc

    sc.sglang()
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

    guard("check")
    for cls in [AttentionBackend, *generic.dispatch_overrides(AttentionBackend)]:
        monkeypatch.setattr(cls, "forward", _around(generic.guard_dispatch, vars(cls)["forward"]))


def _around(hook, original):
    @functools.wraps(original)
    def forward(*args, **kwargs):
        return hook(original, *args, **kwargs)

    return forward
