from types import SimpleNamespace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import fill


class AttachedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.state = SimpleNamespace()
        self.sizes = SimpleNamespace()
        fill.attach_window(self.state, self.token_to_kv_pool)  # expect: KVP001
        fill.attach_geometry(self.sizes, self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.state.window is not None:  # expect: KVP003
            return self.state.window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
