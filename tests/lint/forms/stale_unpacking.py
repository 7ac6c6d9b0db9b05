"""A pool decision unpacked into several names: each name holds what its own position was."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PairedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.window_on, self.window_pool = (True, pool.swa_kv_pool) if isinstance(pool, SWAKVPool) else (False, None)  # expect: KVP001,KVP002
        self.swa_map, self.map_on = (pool.full_to_swa_index_mapping, 1) if isinstance(pool, SWAKVPool) else (None, 0)  # expect: KVP001,KVP002
        self.layout_on, *self.layout_pools = [True, pool.swa_kv_pool, pool.full_kv_pool] if isinstance(pool, SWAKVPool) else [False, None, pool]  # expect: KVP001,KVP002
        (self.nested_on, (self.nested_swa, self.heads)) = (True, (pool.swa_kv_pool, 8)) if isinstance(pool, SWAKVPool) else (False, (None, 8))  # expect: KVP001,KVP002
        enabled, target = (False, None) if not isinstance(pool, SWAKVPool) else (True, pool.swa_kv_pool)
        self.local_on = enabled  # expect: KVP002
        self.local_target = target  # expect: KVP001
        for on, sub in ((isinstance(pool, SWAKVPool), getattr(pool, "swa_kv_pool", None)),):
            self.loop_on = on  # expect: KVP002
            self.loop_sub = sub  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_on:  # expect: KVP003
            q = q + 1
        if self.map_on:  # expect: KVP003
            q = q + 1
        if self.layout_on and self.nested_on:  # expect: KVP003
            q = q + 1
        if self.local_on or self.loop_on:  # expect: KVP003
            q = q + 1
        return q if self.heads > 0 else k
