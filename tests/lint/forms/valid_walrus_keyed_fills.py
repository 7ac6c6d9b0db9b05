# The same walrus fills, keyed by the pool they were made for: refilled whenever the live pool
# is another one.
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WalrusKeyedBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._made_for = None
        self._split_kv = False

    def init_forward_metadata(self, forward_batch):
        if (pool := self.token_to_kv_pool) is not self._made_for:
            self._split_kv = isinstance(pool, SWAKVPool)
            self._made_for = pool
        split = self._split_kv
        forward_batch.loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc) if (
            split) else None
