"""Look-alikes of a table of SWA flags: one of the model's geometry (window sizes, the ids of
windowed layers, the ids of the pool's sub-pools: a count), one made again from the live pool
on every forward, and one a resolver makes from the pool the allocator hands out (the #27491
fix)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class GeometryTableAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = [w > 0 for w in model_runner.model_config.window_sizes]
        self.windowed_ids = [i for i, w in enumerate(model_runner.model_config.window_sizes) if w]
        self.layer_ids = [i for i, _ in enumerate(model_runner.token_to_kv_pool.pools)]
        self.swa_by_layer = self._resolve_layer_kinds(model_runner)

    @staticmethod
    def _resolve_layer_kinds(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return {i: isinstance(p, SWAKVPool) for i, p in enumerate(pool.pools)}

    def init_forward_metadata(self, forward_batch):
        live = {i: isinstance(p, SWAKVPool) for i, p in enumerate(self.token_to_kv_pool.pools)}
        forward_batch.swa_layers = [i for i, swa in live.items() if swa]
        ids = {i for i, p in enumerate(self.token_to_kv_pool.pools) if isinstance(p, SWAKVPool)}
        forward_batch.swa_ids = ids

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id in self.windowed_ids and layer.layer_id in self.layer_ids:
            return None
        if self.windowed[layer.layer_id] and self.swa_by_layer[layer.layer_id]:
            return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return None
