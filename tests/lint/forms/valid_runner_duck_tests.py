"""Duck tests of what the runner holds besides its pool (the model, its config) name SWA
words but ask about the model: nothing about a pool is kept."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ModelHookBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner
        self.has_window_hook = hasattr(model_runner.model, "get_attention_sliding_window_size")
        self.config_has_window = hasattr(
            self.model_runner.model_config.hf_config, "sliding_window"
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.has_window_hook and self.config_has_window:
            return q
        return k
