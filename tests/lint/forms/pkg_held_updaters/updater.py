from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class IndicesUpdater:
    """Built once by the backend; asks the runner for the pool on each update."""

    def __init__(self, model_runner, attn_backend):
        self.model_runner = model_runner
        self.attn_backend = attn_backend

    def update(self, forward_batch):
        pool = self.model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
