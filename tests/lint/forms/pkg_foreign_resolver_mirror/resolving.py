from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def pick_window_pool(model_runner):
    """The SWA pool to translate against: the active one, none for a draft with a pool of its
    own, else the pool the shared allocator manages (a FROZEN_KV draft reads the target's)."""
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    managed = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return managed if isinstance(managed, SWAKVPool) else None
