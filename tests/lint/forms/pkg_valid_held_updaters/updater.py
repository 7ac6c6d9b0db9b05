from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class IndicesUpdater:
    """Asks the backend it serves for the pool on each update: the one FROZEN_KV swaps."""

    def __init__(self, model_runner, attn_backend):
        self.model_runner = model_runner
        self.attn_backend = attn_backend
        self.page_size = model_runner.page_size

    def update(self, forward_batch):
        pool = self.attn_backend.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc

    def describe(self):
        return self.model_runner.token_to_kv_pool.page_size  # asked once, by no forward
