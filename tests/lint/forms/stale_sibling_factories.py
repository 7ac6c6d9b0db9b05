"""A classmethod of a helper class calling its siblings through ``cls`` (``cls.probe(pool)``):
what it returns is what those return, kept like any pool state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class KVLens:
    @staticmethod
    def windowed(pool) -> bool:
        return type(pool) is SWAKVPool

    @classmethod
    def mapping(cls, pool):
        return pool.full_to_swa_index_mapping if cls.windowed(pool) else None

    @classmethod
    def view(cls, pool):
        return {"swa": cls.windowed(pool), "map": cls.mapping(pool)}

    @classmethod
    def heads(cls, pool) -> int:
        return pool.head_num


class LensAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.heads = KVLens.heads(self.token_to_kv_pool)
        self.index_map = KVLens.mapping(self.token_to_kv_pool)  # expect: KVP001
        self.lens_view = KVLens.view(model_runner.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.lens_view["swa"]:  # expect: KVP003
            forward_batch.loc = self.index_map[forward_batch.loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        live = KVLens.view(self.token_to_kv_pool)
        return live["map"] if live["swa"] else self.heads
