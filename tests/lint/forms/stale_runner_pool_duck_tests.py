"""The same duck test of the runner's pool (read through the runner held on self) is an SWA
type flag kept past the swap."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolHookBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner
        runner = self.model_runner
        self.window_pool = hasattr(runner.token_to_kv_pool, "swa_kv_pool")  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool:  # expect: KVP003
            return q
        return k
