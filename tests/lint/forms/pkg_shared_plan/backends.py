"""Two compositions of the plan mixin: one over the kept probe, one over the live probe."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .mixins import LiveProbeMixin, PlanMixin, ProbeMixin


class StaleComposedAttnBackend(PlanMixin, ProbeMixin, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner=model_runner)
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        self.plan(forward_batch)


class LiveComposedAttnBackend(PlanMixin, LiveProbeMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        self.plan(forward_batch)
