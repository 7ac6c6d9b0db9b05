from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .helpers import WindowProbe, is_windowed
from .window_registry import publish, translator


class LivePoolRegistryAttnBackend(AttentionBackend):
    """Publishes its own pool (the one a FROZEN_KV swap rebinds) at the start of each forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        publish(self.token_to_kv_pool)
        self.translate = translator()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        half = WindowProbe.half_of(self)
        if half is not None and is_windowed(self):
            return half.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        translate = translator()
        if translate is None:
            return forward_batch.out_cache_loc
        return translate(forward_batch.out_cache_loc)
