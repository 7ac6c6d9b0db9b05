"""A vendor subclass in another module probing the base's kept translator per forward: whether
it is there, callable or None is the base's type test of the pool it was built with."""
from __future__ import annotations

from .base import TranslatingBaseAttnBackend


class VendorTranslatingAttnBackend(TranslatingBaseAttnBackend):
    def init_forward_metadata(self, forward_batch):
        if hasattr(self, "translate"):  # expect: KVP003
            forward_batch.swa_loc = self.translate(forward_batch.out_cache_loc)
        if callable(getattr(self, "translate", None)):  # expect: KVP003
            forward_batch.swa_loc = forward_batch.out_cache_loc
        if callable(self.to_swa):  # expect: KVP003
            forward_batch.swa_loc = self.to_swa(forward_batch.out_cache_loc)
        if self.to_swa is not None:  # expect: KVP003
            forward_batch.swa_loc = self.to_swa(forward_batch.out_cache_loc)
