"""Probe mixins (one keeps the flag, one makes it a live property) and the plan both share."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ProbeMixin:
    def __init__(self, model_runner, **kwargs):
        super().__init__(**kwargs)
        self.hybrid = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002


class LiveProbeMixin:
    @property
    def hybrid(self):
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class PlanMixin:
    def plan(self, forward_batch):
        if self.hybrid:  # expect: KVP003
            forward_batch.swa = True
