"""A closure kept in __init__ reading a live property over the active pool: live."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SameBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._live = lambda loc: self.main_pool.translate_loc_from_full_to_swa(loc)

    @property
    def main_pool(self):
        return self.token_to_kv_pool.main_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self._live(forward_batch.out_cache_loc)
