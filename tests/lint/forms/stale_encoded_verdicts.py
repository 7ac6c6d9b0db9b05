"""A pool verdict turned into a number or a string (a bit shifted into a mask, a count offset
by it, a label formatted from the pool's class name) is still that verdict: kept in
``__init__``, a later test of the bit or the label decides on the pool the backend was built
with, not on the one a FROZEN_KV swap handed it."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PackedVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        chunked = model_runner.attention_chunk_size is not None
        self.mask = (isinstance(pool, SWAKVPool) << 2) | (chunked << 1)  # expect: KVP002
        self.arch_mask = int(chunked) << 1 | int(model_runner.page_size > 1)
        self.tier = 1 + int(hasattr(pool, "swa_kv_pool"))  # expect: KVP002
        self.described = "%s/%d" % (pool.__class__.__name__, model_runner.page_size)  # expect: KVP002
        self.arch_tag = f"{model_runner.model_config.attention_arch}-{model_runner.page_size}"

    def init_forward_metadata(self, forward_batch):
        if (self.mask >> 2) & 1:  # expect: KVP003
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc if self.arch_mask & 2 else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        while self.tier > 1:  # expect: KVP003
            return q, self.token_to_kv_pool.swa_kv_pool
        if self.described.startswith("SWA"):  # expect: KVP003
            return q, None
        return q, self.arch_tag


class PackedPerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.arch_mask = int(model_runner.attention_chunk_size is not None) << 1

    @property
    def described(self):
        return f"{type(self.token_to_kv_pool).__qualname__}"

    def init_forward_metadata(self, forward_batch):
        mask = int(isinstance(self.token_to_kv_pool, SWAKVPool)) << 2 | self.arch_mask
        if mask & 4:
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        if "SWA" in self.described:
            return None
        return forward_batch.out_cache_loc
