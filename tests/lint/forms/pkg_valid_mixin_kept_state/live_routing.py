"""A mixin of another module deciding on what the base reads per forward."""
from __future__ import annotations


class LiveHalfRoutingMixin:
    def _half_for(self, layer):
        if self.window_half is not None and layer.sliding_window_size > 0:
            return self.window_half
        return self.token_to_kv_pool

    def _loc_for(self, loc):
        if not self.loc_map or self.window is None:
            return loc
        return self.loc_map[loc]
