# The same unseen helper asked of the live pool per forward, and of a layer (geometry): what it
# answers then is that forward's.
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .pool_tests import is_swa_layer, is_swa_pool


class UnseenHelperLiveBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_layers = [is_swa_layer(i) for i in range(model_runner.num_layers)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        if is_swa_pool(self.token_to_kv_pool) and self.window_layers[layer.layer_id]:
            return q
        return k
