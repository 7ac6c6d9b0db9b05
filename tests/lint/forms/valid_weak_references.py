"""Correct look-alikes of weak references: to the backend itself, to backends in a class-level
set, a cache keyed weakly by the pool of each forward, and a proxy of the live pool per call."""
from __future__ import annotations

import weakref

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WeakLiveAttnBackend(AttentionBackend):
    _backends: "weakref.WeakSet[WeakLiveAttnBackend]" = weakref.WeakSet()

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._self_ref = weakref.ref(self)
        self._tables = weakref.WeakKeyDictionary()
        WeakLiveAttnBackend._backends.add(self)

    def init_forward_metadata(self, forward_batch):
        pool = weakref.proxy(self.token_to_kv_pool)
        if hasattr(pool, "swa_kv_pool"):
            self._tables[self.token_to_kv_pool] = pool.full_to_swa_index_mapping
        if self._self_ref() is not None:
            self.forward_metadata = self._tables.get(self.token_to_kv_pool)
