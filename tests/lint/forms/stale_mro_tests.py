"""A type test spelled through the class's method resolution order (``SWAKVPool in
type(pool).__mro__``, a local holding that tuple, ``any(c is SWAKVPool for c in ...)``, the
direct ``__bases__``) is the same verdict as ``isinstance``: kept in ``__init__`` it is the
draft pool's, and a decision on it, even one in ``__init__`` choosing what else to keep, is stale."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class MroVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        lineage = type(self.token_to_kv_pool).__mro__
        self.pool_windowed = SWAKVPool in lineage  # expect: KVP002
        self.direct_window = any(base is SWAKVPool for base in type(model_runner.token_to_kv_pool).__bases__)  # expect: KVP002
        self.layer_classes = type(model_runner.model_config).__mro__
        if self.pool_windowed:  # expect: KVP003
            self.loc_table = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.direct_window:  # expect: KVP003
            return self.loc_table[forward_batch.out_cache_loc]
        return forward_batch.out_cache_loc, len(self.layer_classes)


class MroPerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        lineage = type(self.token_to_kv_pool).__mro__
        if SWAKVPool in lineage:
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
