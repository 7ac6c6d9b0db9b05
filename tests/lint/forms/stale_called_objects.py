"""Pool state through callable objects: an object whose class defines ``__call__`` is a helper
like any function, and what its ``__call__`` derives from the pool it is given is derived,
however it is called (made and called at once, or kept in a local first)."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowLookup:
    def __init__(self, attr="swa_kv_pool"):
        self.attr = attr

    def __call__(self, pool):
        return getattr(pool, "swa_kv_pool", None) if isinstance(pool, SWAKVPool) else None


class LayoutTest:
    def __call__(this, pool, *, strict=False):
        return type(pool).__name__.startswith("SWA")


class CallableProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_pool = WindowLookup()(self.token_to_kv_pool)  # expect: KVP001
        tester = LayoutTest()
        self.windowed = tester(model_runner.token_to_kv_pool, strict=True)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed and layer.sliding_window_size > 0:  # expect: KVP003
            return self.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
