"""The backend keeps what the unconditional helper returned; the resolver's answer is the fix."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import kv_access
from .kv_access import allocator_cache


class ForeignAllocatorHelperAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.shared_pool = allocator_cache(model_runner.token_to_kv_pool_allocator)  # expect: KVP001
        self._swa_kv_pool = kv_access.resolved_window(
            model_runner.token_to_kv_pool, model_runner.token_to_kv_pool_allocator)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = getattr(self.shared_pool, "full_to_swa_index_mapping", None)
        if table is not None:  # expect: KVP003
            return table[forward_batch.out_cache_loc]
        return None
