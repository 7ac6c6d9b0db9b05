"""Flags named for SWA, kept from a pool test that is no SWA class or attribute test:
``full_kv_pool`` (and a hybrid base class) belong to every split pool, SWA's among them. The
name says which decision the flag stands for: a boolean SWA flag decided once from the pool's
type (KVP002). No safe fix: the resolved SWA pool is not what the test tests (a hybrid linear
pool has a ``full_kv_pool`` too), so the flag is not rewritten, nor are its gates."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.memory_pool import HybridLinearKVPool
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class NamedHybridFlagAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.sliding_pages = hasattr(self.token_to_kv_pool, "full_kv_pool")  # expect: KVP002
        pool = model_runner.token_to_kv_pool
        self.windowed = not isinstance(pool, HybridLinearKVPool)  # expect: KVP001

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.sliding_pages:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.windowed:  # expect: KVP003
            loc = loc.to(torch.int32)
        forward_batch.read_loc = loc
