"""The base of a backend family that keeps only geometry and reads the pool per forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveHalvesBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.window = model_runner.sliding_window_size

    @property
    def window_half(self):
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    def init_forward_metadata(self, forward_batch):
        self.loc_map = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)
