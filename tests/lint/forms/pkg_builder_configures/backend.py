from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ConfigurableBackend(AttentionBackend):
    """Configured by a factory in another module after construction."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._window = None
        self._page = 1

    def configure(self, pool, page_size=1):
        self._window = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self._page = page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._window is not None:  # expect: KVP003
            return self._window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
