from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .memo import live, once


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
