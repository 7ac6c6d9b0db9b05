from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import memo
from .memo import Derived, live, once


class OnceBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @once
    def window_pool(self):  # expect: KVP001
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    @live
    def current_window(self):
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.current_window is not None:
            return self.current_window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


def _window_of(pool):
    return pool if isinstance(pool, SWAKVPool) else None


class DerivedBackend(AttentionBackend):
    window_pool = memo.Derived(lambda pool: getattr(pool, "swa_kv_pool", None))  # expect: KVP001
    window_kind = Derived(_window_of)  # expect: KVP001

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool is not None:  # expect: KVP003
            return self.window_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
