"""The base of a backend family: it keeps the pool's window half and mapping in __init__."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KeptHalvesBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.window_half = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.loc_map = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001
        self.page_size = model_runner.page_size
