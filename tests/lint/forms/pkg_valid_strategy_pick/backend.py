from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .spaces import IndexSpace, space_for


class StrategyPerForwardBackend(AttentionBackend):
    """The strategy picked again for the pool of each forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        space = IndexSpace.pick(pool) if forward_batch.batch_size else space_for(pool)
        forward_batch.swa_loc = space.locs(pool, forward_batch.out_cache_loc)
