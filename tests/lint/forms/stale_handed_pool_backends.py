"""Inner attention backends handed pool state when built: each keeps what it was handed (the
active pool under another name, its SWA sub-pool, its mapping), so the backend holding it
keeps that pool's state past the swap. Built in __init__, in a helper, in a table."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowKernelBackend(AttentionBackend):
    """Runs one window over the pool it is given (positionally) and an optional mapping."""

    def __init__(self, cache, window, mapping=None):
        super().__init__()
        self.cache = cache
        self.window = window
        self.mapping = mapping

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc if self.mapping is None else self.mapping[forward_batch.out_cache_loc]
        return torch.ops.demo.window_decode(q, self.cache.get_key_buffer(layer.layer_id), loc, self.window)


class HandingAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size or -1
        self.local = WindowKernelBackend(model_runner.token_to_kv_pool, window)  # expect: KVP001
        self.by_kind = {"mapped": self._mapped(self.token_to_kv_pool, window)}  # expect: KVP001

    def _mapped(self, kv, window):
        mapping = kv.full_to_swa_index_mapping if isinstance(kv, SWAKVPool) else None
        return WindowKernelBackend(None, window, mapping=mapping)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        inner = self.local if layer.sliding_window_size > 0 else self.by_kind["mapped"]
        return inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
