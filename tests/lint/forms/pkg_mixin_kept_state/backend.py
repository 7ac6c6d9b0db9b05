"""The family's backend: the mixin's helpers run on the base's kept state every forward."""
from __future__ import annotations

from .base import KeptHalvesBaseAttnBackend
from .routing import HalfRoutingMixin


class RoutedHalvesAttnBackend(HalfRoutingMixin, KeptHalvesBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._half_for(layer)
        loc = self._loc_for(forward_batch.out_cache_loc)
        return pool.get_key_buffer(layer.layer_id), loc, self._pages(loc.numel())
