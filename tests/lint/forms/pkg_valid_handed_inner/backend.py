"""The hybrid hands the inner the pool, which keeps only its geometry, or only the runner."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .windowed import GeometryOnlyBackend


class GeometryHybridBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = GeometryOnlyBackend(model_runner, target_pool=model_runner.token_to_kv_pool)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.windowed.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)
