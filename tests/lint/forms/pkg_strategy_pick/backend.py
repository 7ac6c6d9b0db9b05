from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .spaces import IndexSpace, space_for


class StrategyOnceBackend(AttentionBackend):
    """The strategy picked once for the init-time pool, applied to every later pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._space = IndexSpace.pick(self.token_to_kv_pool)  # expect: KVP001
        self._other = space_for(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        forward_batch.swa_loc = self._space.locs(self.token_to_kv_pool, forward_batch.out_cache_loc)
