"""Objects picked or made under a pool decision that holds: per forward, from the pool
resolved through the allocator, or computed from what every pool reports alike (its layout)."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LivePicksAttnBackend(AttentionBackend):
    def __init__(self, model_runner, dense_child, window_child):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dense_child, self.window_child = dense_child, window_child
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        if self._swa_kv_pool is not None:
            self.graph_swa_loc = torch.zeros(16, dtype=torch.int64)
        pool = model_runner.token_to_kv_pool

        def is_vectorized(p):
            if isinstance(p, SWAKVPool):
                return getattr(p.full_kv_pool, "kv_cache_layout", "nhd") == "vectorized_5d"
            return getattr(p, "kv_cache_layout", "nhd") == "vectorized_5d"

        self.vectorized = is_vectorized(pool)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            self.child = self.window_child
        else:
            self.child = self.dense_child

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self.child.forward_decode(q, k, v, layer, forward_batch)
