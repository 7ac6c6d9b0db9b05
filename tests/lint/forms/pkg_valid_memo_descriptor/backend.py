from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import memo
from .memo import Kept, live, once


class LiveBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @once
    def head_dim(self):
        return self.token_to_kv_pool.head_dim

    @live
    def current_window(self):
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.current_window is not None:
            return self.current_window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class DerivedBackend(AttentionBackend):
    window_pool = memo.Derived(lambda pool: pool if isinstance(pool, SWAKVPool) else None)
    page_size = Kept(lambda pool: pool.page_size)

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool is not None:
            return self.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
