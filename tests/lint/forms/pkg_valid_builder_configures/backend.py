from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ConfigurableBackend(AttentionBackend):
    """Configured by a factory in another module with geometry only."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._page = 1

    def configure(self, page_size=1):
        self._page = page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = getattr(self.token_to_kv_pool, "swa_kv_pool", None)
        if window is not None:
            return window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
