"""An attribute getter kept on the backend reads what it names off whatever it is given: applied
to the active pool outside per-forward code, what it returns is that pool's state, kept."""
from __future__ import annotations

import operator
from operator import attrgetter

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KeptGetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.read_map = operator.attrgetter("full_to_swa_index_mapping")
        self.read_window_pool = attrgetter("swa_kv_pool")
        self.loc_map = self.read_map(self.token_to_kv_pool)  # expect: KVP001
        self.init_cuda_graph_state(8, 64)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_pool = self.read_window_pool(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.loc_map is not None:  # expect: KVP003
            forward_batch.swa_loc = self.loc_map[forward_batch.out_cache_loc]
