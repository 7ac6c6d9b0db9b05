"""A backend reaching every helper through ``from . import *`` (the package's re-exports)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import *  # noqa: F403


class HipWindowAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layers = layer_count(model_runner.model_config)
        self.use_swa = swa_enabled(self.token_to_kv_pool)  # expect: KVP002
        self.index_map = window_index_map(model_runner.token_to_kv_pool)  # expect: KVP001
        self.main_part, self.window_part = KVProbe.halves(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.index_map is not None:  # expect: KVP003
            loc = self.index_map[loc]
        self.forward_metadata = loc

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.window_part if self.use_swa else self.main_part  # expect: KVP003
        return pool, self.layers
