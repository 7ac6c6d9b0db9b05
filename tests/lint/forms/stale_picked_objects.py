"""Objects picked by a pool type test and kept: a translation strategy, a kernel with the
mapping bound. Which one was picked is the test's verdict, so a forward testing the kept object's
type or identity decides for the pool of construction."""
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


def windowed_step(q, loc, table=None):
    return q, table[loc]


def dense_step(q, loc):
    return q, loc


class PickedStrategyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.remap = Remap(pool.full_to_swa_index_mapping) if isinstance(pool, SWAKVPool) else Passthrough()  # expect: KVP001
        self.step = functools.partial(windowed_step, table=pool.full_to_swa_index_mapping) if hasattr(pool, "swa_kv_pool") else dense_step  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.graph_remap = Remap(pool.full_to_swa_index_mapping)  # expect: KVP001
        else:
            self.graph_remap = Passthrough()  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if isinstance(self.remap, Remap):  # expect: KVP003
            forward_batch.window_loc = self.remap.apply(forward_batch.out_cache_loc)
        if type(self.graph_remap) is Passthrough:  # expect: KVP003
            forward_batch.window_loc = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.step is dense_step:  # expect: KVP003
            return q
        return self.step(q, forward_batch.out_cache_loc)
