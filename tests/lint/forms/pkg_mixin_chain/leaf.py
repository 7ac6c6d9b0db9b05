"""Subclasses two modules away from the mixins: the copied flags gate here, the live view of
the same name does not."""
from __future__ import annotations

from .middle import CopyingBaseAttnBackend, ResolvedBaseAttnBackend


class CopyingLeafAttnBackend(CopyingBaseAttnBackend):
    def step_tables(self, forward_batch, steps):
        return [forward_batch.swa_table if self.hybrid else forward_batch.table  # expect: KVP003
                for _ in range(steps)]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return forward_batch.swa_table if self.windowed else forward_batch.table  # expect: KVP003


class ResolvedLeafAttnBackend(ResolvedBaseAttnBackend):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        use = layer.sliding_window_size > 0 and self.windowed
        return forward_batch.swa_table if use else forward_batch.table
