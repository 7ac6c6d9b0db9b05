from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CompositeBase(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def main_pool(self):
        return self.token_to_kv_pool.main_pool
