"""A loop over constant names storing each one reflectively (``setattr(self, f"_{name}",
getattr(pool, name, None))``) keeps every name it gives; a decision on any of them is kept."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_PARTS = ("full_kv_pool", "swa_kv_pool")


class NamedLoopAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        for part in _PARTS:
            setattr(self, f"kept_{part}", getattr(pool, part, None))  # expect: KVP001
        for field in ["full_to_swa_index_mapping"]:
            setattr(self, field + "_copy", getattr(self.token_to_kv_pool, field))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.kept_swa_kv_pool is not None:  # expect: KVP003
            return self.kept_swa_kv_pool.get_key_buffer(layer.layer_id)
        return self.full_to_swa_index_mapping_copy[forward_batch.out_cache_loc]
