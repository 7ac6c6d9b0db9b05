"""A vendor subclass in another module: its forwards decide on the fields of the objects its
base built once from the pool (the translator, the window pool, the mapping)."""
from __future__ import annotations

from .base import PlannedBaseAttnBackend


class MusaPlannedAttnBackend(PlannedBaseAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.window_half = self.planner.window_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.planner.translate is not None:  # expect: KVP003
            forward_batch.swa_loc = self.planner.translate(forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.planner.window_pool is not None:  # expect: KVP003
            return self.planner.window_pool.get_key_buffer(layer.layer_id)
        route = self.route
        if route.mapping is not None:  # expect: KVP003
            return route.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class MusaDeepPlannedAttnBackend(MusaPlannedAttnBackend):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.planner.window_pool:  # expect: KVP003
            return self.planner.window_pool.get_value_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def forward_idle(self, forward_batch):
        translate = self.planner.translate
        if translate is not None:  # expect: KVP003
            forward_batch.swa_loc = translate(forward_batch.out_cache_loc)
