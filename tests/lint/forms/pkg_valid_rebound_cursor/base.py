"""The base keeps the pool and the page size; heirs build their helpers in a hook."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HookBase(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self._build_helpers(model_runner)

    def _build_helpers(self, model_runner):
        pass
