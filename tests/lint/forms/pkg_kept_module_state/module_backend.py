from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import window_registry


class RegistryAttnBackend(AttentionBackend):
    """Publishes the pool's window facts into a module of the package at construction and
    decides from them per forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size
        window_registry.publish(model_runner.token_to_kv_pool, 16)  # expect: KVP001,KVP002

    def init_forward_metadata(self, forward_batch):
        translate = window_registry.translator()
        loc = forward_batch.out_cache_loc
        self.swa_loc = translate(loc) if translate is not None else None  # expect: KVP003
        self.rows = window_registry.rows() * 2

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if window_registry.SWA_ON and layer.sliding_window_size > 0:  # expect: KVP003
            return self.swa_loc
        if window_registry.swa_on():  # expect: KVP003
            return None
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
