"""The base of a backend family: what its helpers build is geometry, built again from the live
pool on every forward, or built from the pool the allocator resolves (the #27491 fix)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .planner import ChunkPlanner, ChunkShape


class ShapedBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.shape = self._build_shape(model_runner)
        self.resolved = self._resolve_planner(model_runner)
        self.live = None

    def _build_shape(self, model_runner):
        return ChunkShape(16, model_runner.sliding_window_size or 0)

    @staticmethod
    def _resolve_planner(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        if isinstance(pool, SWAKVPool):
            return ChunkPlanner(16, pool.translate_loc_from_full_to_swa, pool.swa_kv_pool)
        return ChunkPlanner(16)

    def _plan_live(self):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return ChunkPlanner(16, pool.translate_loc_from_full_to_swa, pool.swa_kv_pool)
        return ChunkPlanner(16)

    def init_forward_metadata(self, forward_batch):
        self.live = self._plan_live()
