"""Correct look-alikes of the picked objects: the strategy picked again from the live pool in
each forward, a kernel picked by geometry and kept, and a kept stateless strategy only called."""
from __future__ import annotations

import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Passthrough:
    def apply(self, loc):
        return loc


class Remap:
    def __init__(self, table):
        self.table = table

    def apply(self, loc):
        return self.table[loc]


def windowed_step(q, loc, window=-1):
    return q, loc, window


def dense_step(q, loc):
    return q, loc


class LivePickedStrategyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size
        self.step = functools.partial(windowed_step, window=window) if window else dense_step
        self.identity = Passthrough()

    def _remap(self):
        pool = self.token_to_kv_pool
        return Remap(pool.full_to_swa_index_mapping) if isinstance(pool, SWAKVPool) else self.identity

    def init_forward_metadata(self, forward_batch):
        remap = self._remap()
        if isinstance(remap, Remap):
            forward_batch.window_loc = remap.apply(forward_batch.out_cache_loc)
        forward_batch.loc = self.identity.apply(forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.step is dense_step:
            return q
        return self.step(q, forward_batch.out_cache_loc)
