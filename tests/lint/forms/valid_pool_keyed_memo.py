from types import SimpleNamespace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolKeyedPlansBackend(AttentionBackend):
    """Plans memoised per pool object, seeded with the init-time pool: every read looks the
    dict up by the live pool, so the seeded key is never read back."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._plans = {model_runner.token_to_kv_pool: SimpleNamespace(offset=0)}

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if pool not in self._plans:
            self._plans[pool] = SimpleNamespace(offset=0)
        self.plan = self._plans.get(pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id + self._plans[pool].offset)
