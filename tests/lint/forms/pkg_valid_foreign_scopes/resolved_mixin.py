"""A mixin keeping the resolved pool and a read-only view of it."""
from __future__ import annotations

from .resolve import swa_pool_for as _resolve


class ResolvedWindowMixin:
    def _setup_window(self, model_runner):
        self._swa_kv_pool = _resolve(model_runner)

    @property
    def has_window(self) -> bool:
        return self._swa_kv_pool is not None
