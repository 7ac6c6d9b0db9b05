"""Dispatch tables keyed by a stale flag (``.get``), and a base class whose own code keeps
reading its stored flag although one subclass turned it into a live property."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class TableDispatchAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = type(model_runner.token_to_kv_pool) is SWAKVPool  # expect: KVP002
        self.kernels = {True: "swa_kernel", False: "dense_kernel"}

    def forward_decode(self, q, k, v, layer, forward_batch):
        kernel = self.kernels.get(self.windowed)  # expect: KVP003
        other = (self.kernels or {}).get(not self.windowed, "dense_kernel")  # expect: KVP003
        live = self.kernels.get(isinstance(self.token_to_kv_pool, SWAKVPool))
        by_layer = self.kernels.get(layer.is_swa, "dense_kernel")
        return kernel, other, live, by_layer


class LiveWindowedAttnBackend(TableDispatchAttnBackend):
    @property
    def windowed(self):
        return type(self.token_to_kv_pool) is SWAKVPool

    @windowed.setter
    def windowed(self, value):
        pass

    def forward_extend(self, q, k, v, layer, forward_batch):
        return self.kernels.get(self.windowed)


class PlainWindowedAttnBackend(TableDispatchAttnBackend):
    def forward_extend(self, q, k, v, layer, forward_batch):
        if self.windowed:  # expect: KVP003
            return q
        return k
