"""Derives its flag from a sub-pool the backend keeps: alone (bare) it holds nothing of the
pool, so another mixin of the backend saw the flag clean through a bare view of this one."""
from __future__ import annotations


class SubPoolFlagMixin:
    def _init_window_flags(self):
        self.window_mode = self.swa_pool is not None  # expect: KVP002
        self.window_size_known = self.window_size is not None
