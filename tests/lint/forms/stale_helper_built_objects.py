"""An object a setup method builds around pool state and returns holds that state field by field:
kept whole on the backend, a forward's decision on one of its fields (a translator the pool type
picked, a sub-pool) decides on the pool the backend was built with."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _no_translation(loc):
    return loc


class ChunkPlanner:
    def __init__(self, chunk, translate=_no_translation, window_pool=None):
        self.chunk = chunk
        self.translate = translate
        self.window_pool = window_pool


class PlannedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.planner = self._build_planner(model_runner)  # expect: KVP001

    def _build_planner(self, model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return ChunkPlanner(16, pool.translate_loc_from_full_to_swa, pool.swa_kv_pool)
        return ChunkPlanner(16)

    def init_forward_metadata(self, forward_batch):
        planner = self.planner
        if planner.translate is not _no_translation:  # expect: KVP003
            forward_batch.swa_loc = planner.translate(forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.planner.window_pool is not None:  # expect: KVP003
            return self.planner.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
