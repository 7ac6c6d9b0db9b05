from sglang.srt.layers.attention import swa_state
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.swa_state import LAYOUT


class SharedGeometryBackend(AttentionBackend):
    """Only geometry kept on objects other modules own; the pool is decided per forward."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        swa_state.STATE.page_size = pool.page_size
        LAYOUT.window = model_runner.sliding_window_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = getattr(self.token_to_kv_pool, "swa_kv_pool", None)
        if window is not None and LAYOUT.window > 0:
            return window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
