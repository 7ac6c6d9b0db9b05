from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .window_registry import remember_window_half, window_half


class NamedImportAttnBackend(AttentionBackend):
    """The same through names imported from that module, called by a setup method."""

    def __init__(self, model_runner):
        super().__init__()
        self._setup(model_runner)

    def _setup(self, model_runner):
        remember_window_half(model_runner.token_to_kv_pool)  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        half = window_half()
        if half is None:  # expect: KVP003
            return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return half.get_key_buffer(layer.layer_id)
