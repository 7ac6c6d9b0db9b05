from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import util


class B(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if util.wants_swa_write(self, save_kv_cache):  # expect: KVP003
            return k
        return q
