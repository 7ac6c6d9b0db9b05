"""A base of another module keeping what its subclasses hand its constructor."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PagedBase(AttentionBackend):
    def __init__(self, model_runner, *, page_size=1, window_kv=None, **kwargs):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = page_size
        self._window_kv = window_kv
        self._extra = dict(kwargs)
