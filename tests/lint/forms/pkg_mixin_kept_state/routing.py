"""A mixin of another module: its helpers decide on what the family's base keeps."""
from __future__ import annotations


class HalfRoutingMixin:
    def _half_for(self, layer):
        if self.window_half is not None and layer.sliding_window_size > 0:  # expect: KVP003
            return self.window_half
        return self.token_to_kv_pool

    def _loc_for(self, loc):
        if not self.loc_map:  # expect: KVP003
            return loc
        return self.loc_map[loc]

    def _pages(self, tokens):
        return (tokens + self.page_size - 1) // self.page_size
