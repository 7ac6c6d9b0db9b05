from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WindowedBase(AttentionBackend):
    """A template method: construction asks a hook each subclass may override."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = self._detect_windowed(self.token_to_kv_pool)  # expect: KVP002

    def _detect_windowed(self, pool):
        return False
