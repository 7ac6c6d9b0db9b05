"""A mixin storing ``_swa_kv_pool`` from a helper that never asks the allocator."""
from __future__ import annotations

from . import probes as pr


class LazyWindowMixin:
    def _setup_window(self, model_runner):
        self._swa_kv_pool = pr.window_pool_now(model_runner)  # expect: KVP001

    @property
    def has_window(self) -> bool:
        return self._swa_kv_pool is not None
