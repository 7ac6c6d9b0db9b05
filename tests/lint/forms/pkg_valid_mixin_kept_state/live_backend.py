"""The family's backend: the mixin's helpers decide on live state."""
from __future__ import annotations

from .live_base import LiveHalvesBaseAttnBackend
from .live_routing import LiveHalfRoutingMixin


class LiveRoutedHalvesAttnBackend(LiveHalfRoutingMixin, LiveHalvesBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._half_for(layer)
        loc = self._loc_for(forward_batch.out_cache_loc)
        return pool.get_key_buffer(layer.layer_id), loc
