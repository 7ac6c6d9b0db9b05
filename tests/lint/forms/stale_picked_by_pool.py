"""What a pool test picks, whatever it is: a ``cached_property`` keeping a frozenset of window
layers chosen by the pool's type (its first answer is kept), a helper returning a literal
picked under a pool test (``if not isinstance(...): return frozenset()``), per-layer buffers
allocated only when the pool was SWA (``[]`` else): whether they are there is that test."""
from __future__ import annotations

import functools

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class CachedPicksAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.num_layers = 8

    @functools.cached_property
    def window_layers(self):  # expect: KVP001
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            return frozenset(range(4))
        return frozenset()

    @functools.cached_property
    def swa_ids(self):  # expect: KVP001
        pool = self.token_to_kv_pool
        return frozenset(i for i in range(self.num_layers) if isinstance(pool, SWAKVPool))

    def forward_decode(self, q, k, v, layer, forward_batch):
        if layer.layer_id in self.window_layers:  # expect: KVP003
            return q
        return k if layer.layer_id in self.swa_ids else v  # expect: KVP003


class PickedHelperAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.swa_layers = self._swa_layers(model_runner.token_to_kv_pool)  # expect: KVP001

    @staticmethod
    def _swa_layers(pool):
        if not hasattr(pool, "swa_kv_pool"):
            return ()
        return (0, 2, 4)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q if layer.layer_id in self.swa_layers else v  # expect: KVP003


class KeptBuffersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.window_k_buffers = [torch.empty(pool.size_swa) for _ in range(4)] if isinstance(pool, SWAKVPool) else []  # expect: KVP001
        self.window_v_buffers = []
        if isinstance(pool, SWAKVPool):
            for _ in range(4):
                self.window_v_buffers.append(torch.empty(pool.size_swa))  # expect: KVP001
        self.window_tables = {}
        if hasattr(pool, "full_to_swa_index_mapping"):
            self.window_tables["decode"] = torch.zeros(8, dtype=torch.int32)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.window_k_buffers:  # expect: KVP003
            return q
        if not self.window_v_buffers:  # expect: KVP003
            return k
        return v if self.window_tables else q  # expect: KVP003


class FilteredBuffersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.k_buffers = {i: torch.empty(8) for i in range(4) if isinstance(model_runner.token_to_kv_pool, SWAKVPool)}  # expect: KVP001

    @functools.cache
    def window_ids(self):  # expect: KVP001
        return (1, 3) if isinstance(self.token_to_kv_pool, SWAKVPool) else ()

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.k_buffers:  # expect: KVP003
            return q
        return k if layer.layer_id in self.window_ids() else v  # expect: KVP003
