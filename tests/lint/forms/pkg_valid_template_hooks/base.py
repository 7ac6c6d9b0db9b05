from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class GeometryBase(AttentionBackend):
    """Construction keeps what a hook returns: geometry only, in every subclass."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = self._window_size(model_runner)

    def _window_size(self, model_runner):
        return -1
