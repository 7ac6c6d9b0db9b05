"""A subclass in another module deciding through its base's helper."""
from __future__ import annotations

from .backends import ClassifiedAttnBackend


class ClassifiedDecodeAttnBackend(ClassifiedAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._windowed():  # expect: KVP003
            forward_batch.windowed = True
        return q
