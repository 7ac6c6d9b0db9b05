"""Look-alikes of a kept attribute getter: applied to the live pool on every forward, or reading
geometry off the runner once."""
from __future__ import annotations

import operator

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveGetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.read_map = operator.attrgetter("full_to_swa_index_mapping")
        self.read_window = operator.attrgetter("sliding_window_size")
        self.window = self.read_window(model_runner) or 0

    def init_forward_metadata(self, forward_batch):
        loc_map = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)
        if loc_map is not None and self.window > 0:
            forward_batch.swa_loc = self.read_map(self.token_to_kv_pool)[forward_batch.out_cache_loc]
