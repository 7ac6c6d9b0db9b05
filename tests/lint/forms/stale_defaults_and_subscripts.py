"""Kept pool state reaching a decision as the default of a read (``getattr(layer, "x",
self.flag)``: what the read gives when the layer lacks it), through a local bound to a field,
through ``bool()`` and through subscripts of a kept container."""
from __future__ import annotations

from dataclasses import dataclass

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class Meta:
    enabled: bool
    window: int


class DefaultReadAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.use_swa = isinstance(pool, SWAKVPool)  # expect: KVP002
        self.swa = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.meta = Meta(isinstance(pool, SWAKVPool), model_runner.sliding_window_size)  # expect: KVP001
        self.split = {i: (pool, isinstance(pool, SWAKVPool)) for i in range(4)}  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if getattr(layer, "is_swa", self.use_swa):  # expect: KVP003
            q = q * 2
        if getattr(layer, "swa_pool", self.swa) is not None:  # expect: KVP003
            return q
        use = getattr(forward_batch, "use_swa", self.meta.enabled)
        k = k if use else v  # expect: KVP003
        enabled = self.meta.enabled
        return k if enabled else v  # expect: KVP003

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        split = self.split
        if bool(split) and split[layer.layer_id][1]:  # expect: KVP003
            return q
        if bool(self.split) and self.split[layer.layer_id][1]:  # expect: KVP003
            return k
        window = getattr(layer, "sliding_window_size", self.meta.window)
        return v if window > 0 else q


class KeptItemsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.pools = {"swa": getattr(pool, "swa_kv_pool", None), "full": pool}  # expect: KVP001
        self.flags = [isinstance(pool, SWAKVPool)]  # expect: KVP002
        self.sizes = {"page": model_runner.page_size}

    def forward_decode(self, q, k, v, layer, forward_batch):
        if bool(self.pools["swa"]):  # expect: KVP003
            q = q * 2
        if bool(self.flags) and bool(self.flags[-1]):  # expect: KVP003
            q = q * 3
        return k if bool(self.sizes) and self.sizes["page"] > 1 else v
