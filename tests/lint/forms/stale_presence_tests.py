"""Whether an attribute exists at all is the decision that set it: ``hasattr(self, "x")`` where
``self.x`` is set, outside per-forward code, only under a type or duck test of the pool (or
under a flag kept from one) decides on that test, stale after a FROZEN_KV swap."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PresenceAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or 0
        self.is_windowed = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if hasattr(self.token_to_kv_pool, "full_to_swa_index_mapping"):
            self.loc_table = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if self.is_windowed:  # expect: KVP003
            self.window_rows = max_num_tokens

    def init_forward_metadata(self, forward_batch):
        if hasattr(self, "loc_table"):  # expect: KVP003
            forward_batch.loc = self.loc_table[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = forward_batch.batch_size if not hasattr(self, "window_rows") else 0  # expect: KVP003
        return q if rows else k
