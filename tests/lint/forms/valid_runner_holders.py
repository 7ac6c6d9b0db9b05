"""Correct look-alikes of a runner held under another name: its geometry kept, the pool read
per forward from self.token_to_kv_pool, a config holder that is no runner."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class HeldRunnerLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner, config):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.owner = model_runner
        self.settings = config
        self.page_size = self.owner.page_size
        self.head_dim = self.settings.token_to_kv_pool_head_dim

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        if isinstance(pool, SWAKVPool):
            loc = pool.translate_loc_from_full_to_swa(loc)
        forward_batch.swa_loc = loc


class ChosenHolderLookalikeAttnBackend(AttentionBackend):
    """The holder chosen by ``or`` gives the swap point itself and geometry only."""

    def __init__(self, model_runner, owner=None):
        self.holder = owner or model_runner
        self.token_to_kv_pool = self.holder.token_to_kv_pool
        self.page_size = self.holder.page_size
        self.device = self.holder.device

    def forward_decode(self, q, k, v, layer, forward_batch):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return q
