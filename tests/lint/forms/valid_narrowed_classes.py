"""Correct look-alikes of loops of type tests: over model layers (not a pool), over the pool of
this forward, or in ``__init__`` keeping only geometry or logging the class found."""
from __future__ import annotations

import logging

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

logger = logging.getLogger(__name__)
_POOL_TYPES = (SWAKVPool, BaseSWAKVPool)


class NarrowedClassAttnBackendLive(AttentionBackend):
    def __init__(self, model_runner, layer_types):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.layer_kind = None
        for layer_cls in layer_types:
            if isinstance(model_runner.model, layer_cls):
                self.layer_kind = layer_cls.__name__
        for pool_cls in _POOL_TYPES:
            if isinstance(pool, pool_cls):
                logger.info("built on %s", pool_cls.__name__)
                self.head_dim = pool.head_dim

    def _pool_cls(self):
        for pool_cls in _POOL_TYPES:
            if isinstance(self.token_to_kv_pool, pool_cls):
                return pool_cls
        return None

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = self._pool_cls()
        if self.forward_metadata is SWAKVPool and self.layer_kind == "Llama4":
            forward_batch.swa = True
