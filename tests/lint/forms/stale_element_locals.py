"""A forward takes one entry of a container kept from the pool into a local (by index, by
``.get``, unpacked) and decides on it: the decision is on the kept container's content, as if
it were spelled ``self.layer_kinds[lid][1]``."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ElementLocalAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.layer_kinds = pool.layers_mapping  # expect: KVP001
        self.halves = {"window": getattr(pool, "swa_kv_pool", None)}  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        half = self.halves.get("window")
        if half is not None:  # expect: KVP003
            forward_batch.window_loc = half.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        entry = self.layer_kinds[layer.layer_id]
        if entry[1]:  # expect: KVP003
            return q
        return k

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        _, windowed = self.layer_kinds[layer.layer_id]
        assert not windowed or forward_batch.window_loc is not None  # expect: KVP003
        return q
