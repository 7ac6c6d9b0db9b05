"""SWA type tests of the pool's sub-pools (per layer, per compression ratio) kept in a dict, a
list, a tuple or a set: a table of SWA flags decided once from the pool the backend was built
with, each a flag like the scalar one (KVP002), each lookup of it a gate (KVP003). A table that
also keeps the sub-pools themselves, or the sub-pools the test let in, keeps pool state
(KVP001)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LayerTableAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pools = model_runner.token_to_kv_pool.pools
        self.swa_by_layer = {i: isinstance(p, SWAKVPool) for i, p in enumerate(pools)}  # expect: KVP002
        self.swa_list = [hasattr(p, "swa_kv_pool") for p in pools]  # expect: KVP002
        self.swa_tuple = tuple(type(p) is SWAKVPool for p in pools)  # expect: KVP002
        kinds = {"main": isinstance(self.token_to_kv_pool, SWAKVPool)}
        self.kinds = kinds  # expect: KVP002
        self.by_ratio = {}
        for ratio, sub in self.token_to_kv_pool.pools_by_ratio.items():
            self.by_ratio[ratio] = isinstance(sub, SWAKVPool)  # expect: KVP002
        self.windowed = []
        for sub in pools:
            self.windowed.append(isinstance(sub, SWAKVPool))  # expect: KVP002
        self.entries = {i: (isinstance(p, SWAKVPool), p) for i, p in enumerate(pools)}  # expect: KVP001
        self.swa_pools = [p for p in pools if isinstance(p, SWAKVPool)]  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        if self.swa_by_layer[lid]:  # expect: KVP003
            return 1
        if self.swa_list[lid] and self.swa_tuple[lid]:  # expect: KVP003
            return 2
        if self.kinds.get("main"):  # expect: KVP003
            return 3
        if self.by_ratio[layer.compress_ratio] or self.windowed[lid]:  # expect: KVP003
            return 4
        if self.entries[lid][0]:  # expect: KVP003
            return 5
        return 0
