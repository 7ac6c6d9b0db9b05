"""A draft-side subclass in another module: it never assigns the flag, only reads it."""
from __future__ import annotations

from .hybrid_base_backend import HybridWindowAttnBackend


class DraftWindowAttnBackend(HybridWindowAttnBackend):
    def __init__(self, model_runner, speculative_step_id=0):
        super().__init__(model_runner)
        self.speculative_step_id = speculative_step_id

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.has_window_pool and layer.sliding_window_size > 0:  # expect: KVP003
            loc = self.window_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            return self._swa_decode(q, loc)
        return self._decode(q, forward_batch.out_cache_loc)

    def _table(self, metadata):
        return metadata.swa_page_table if self.window_enabled() else metadata.page_table  # expect: KVP003
