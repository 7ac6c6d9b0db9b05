"""Its twin: a runner flag read through the typed object's runner is still the runner's
(``target.model_runner.is_hybrid_swa``), and an untyped parameter may be the runner itself."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class TargetFlagBackend(AttentionBackend):
    def __init__(self, model_runner, target: "TpModelWorker", other):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.target_swa = target.model_runner.is_hybrid_swa  # expect: KVP002
        self.other_swa = other.is_hybrid_swa  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.target_swa or self.other_swa:  # expect: KVP003
            return k
        return q
