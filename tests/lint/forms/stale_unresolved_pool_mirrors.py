"""A backend that keeps the pool of the moment under the resolver's name (its own
``_resolve_swa_kv_pool`` asks no allocator): a mirror of that attribute is the verdict of the
type test that picked the pool, kept, and a gate on the mirror is a gate on that verdict."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ActiveOnlyBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)  # expect: KVP001
        self.swa_enabled = self._swa_kv_pool is not None  # expect: KVP002
        self.dense_only = not self._swa_kv_pool  # expect: KVP002
        self.window = model_runner.sliding_window_size

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        return None

    def init_forward_metadata(self, forward_batch):
        if self.swa_enabled and forward_batch.out_cache_loc is not None:  # expect: KVP003
            return forward_batch.out_cache_loc
        return None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc if self.dense_only else None  # expect: KVP003
        if self.window is not None:
            return loc
        return q
