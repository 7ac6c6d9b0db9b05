"""A vendor subclass in another module deciding on the fields of its base's objects: geometry,
the planner made again each forward, and the planner of the resolved pool."""
from __future__ import annotations

from .base import ShapedBaseAttnBackend


class MusaShapedAttnBackend(ShapedBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.shape.window > 0 and self.shape.chunk:
            forward_batch.window = self.shape.window
        if self.live.translate is not None:
            forward_batch.swa_loc = self.live.translate(forward_batch.out_cache_loc)
        if self.live.window_pool is not None:
            return self.live.window_pool.get_key_buffer(layer.layer_id)
        if self.resolved.window_pool is not None:
            return self.resolved.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
