"""Decisions in per-forward code on pool state kept in ``__init__`` (not boolean flags)."""
from __future__ import annotations

import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_SHARED_SWA = None


class KeptStateFormsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        global _SHARED_SWA
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.window_pool = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.table = pool.full_to_swa_index_mapping if isinstance(pool, SWAKVPool) else None  # expect: KVP001
        self.reader = functools.partial(pool.get_key_buffer)  # expect: KVP001
        self.swa_layers = {i: pool for i in range(4)} if hasattr(pool, "swa_kv_pool") else {}  # expect: KVP001
        _SHARED_SWA = self.window_pool  # expect: KVP001
        self.pool_copy = pool  # expect: KVP001

    def _table(self):
        return self.table

    def init_forward_metadata(self, forward_batch):
        if not self.window_pool:  # expect: KVP003
            return
        while self.table is None:  # expect: KVP003
            break
        assert self.reader is not None  # a partial is always there: it decides nothing
        if forward_batch.layer_id in self.swa_layers:  # expect: KVP003
            forward_batch.window = True
        table = self._table()
        forward_batch.loc = table[forward_batch.out_cache_loc] if table is not None else None  # expect: KVP003
        if _SHARED_SWA is not None:  # expect: KVP003
            forward_batch.shared = _SHARED_SWA
        if isinstance(self.pool_copy, SWAKVPool):  # expect: KVP003
            forward_batch.swa = True
        pools = [p for p in (self.window_pool,) if p is not None]
        forward_batch.pools = pools

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        sub = self.window_pool or self.token_to_kv_pool  # expect: KVP003
        return sub.get_key_buffer(layer.layer_id) if self.pool_copy.page_size > 1 else q
