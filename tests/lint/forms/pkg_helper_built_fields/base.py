"""The base of a backend family: setup helpers build objects around the pool it was built with
and the base keeps them (each object kept is the finding here; its fields are its heirs')."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .planner import ChunkPlanner, WindowRoute


class PlannedBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.planner = self._build_planner(model_runner)  # expect: KVP001
        self.route = self._build_route(model_runner.token_to_kv_pool)  # expect: KVP001

    def _build_planner(self, model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return ChunkPlanner(16, pool.translate_loc_from_full_to_swa, pool.swa_kv_pool)
        return ChunkPlanner(16)

    def _build_route(self, pool):
        return WindowRoute(getattr(pool, "full_to_swa_index_mapping", None),
                           getattr(pool, "swa_kv_pool", None))
