"""A vendor subclass in another module probing what its base keeps: geometry, an attribute
there whichever way the pool test went, the resolved pool, the live pool's translator."""
from __future__ import annotations

from .base import ResolvedBaseAttnBackend


class VendorResolvedAttnBackend(ResolvedBaseAttnBackend):
    def init_forward_metadata(self, forward_batch):
        if hasattr(self, "chunk_kernel") and callable(getattr(self, "chunk_kernel", None)):
            forward_batch.chunked = True
        if hasattr(self, "translated"):
            forward_batch.chunked = False
        translate = getattr(self.token_to_kv_pool, "translate_loc_from_full_to_swa", None)
        if callable(translate):
            forward_batch.swa_loc = translate(forward_batch.out_cache_loc)
        if self._swa_kv_pool is not None:
            forward_batch.swa_loc = self._swa_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
