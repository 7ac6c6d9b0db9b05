"""A class decorator of the module that installs one of its own functions on the class runs
that function as the method: a wrapper of ``__init__`` keeping the pool's verdict or a sub-pool
keeps it once, for the pool the backend was built with."""
from __future__ import annotations

import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def remembers_mapping(klass):
    built = klass.__init__

    def init_and_remember(self, model_runner, *args, **kwargs):
        built(self, model_runner, *args, **kwargs)
        self.loc_map = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)  # expect: KVP001
        self.heads = model_runner.model_config.num_attention_heads

    klass.__init__ = init_and_remember
    return klass


def graph_state_once(klass):
    @functools.wraps(klass.init_cuda_graph_state)
    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_windowed = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    klass.init_cuda_graph_state = init_cuda_graph_state
    return klass


def live_views(klass):
    def windowed(self):
        return isinstance(self.token_to_kv_pool, SWAKVPool)

    klass.graph_windowed = property(windowed)
    return klass


@remembers_mapping
class RememberedMapAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if self.loc_map is not None:  # expect: KVP003
            return self.loc_map[forward_batch.out_cache_loc]
        return forward_batch.out_cache_loc


@graph_state_once
class GraphFlagAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        pass

    def init_forward_metadata(self, forward_batch):
        return forward_batch.out_cache_loc if not self.graph_windowed else None  # expect: KVP003


@live_views
class LiveViewAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if self.graph_windowed:
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
