"""Helpers handed the backend: none keeps what a pool swap changes."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def resolve_swa_pool(backend, runner):
    active = backend.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    pool = runner.token_to_kv_pool_allocator.get_kvcache()
    return pool if isinstance(pool, SWAKVPool) else None


def keep_geometry(backend, runner):
    backend.window = runner.sliding_window_size or -1
    backend.heads = runner.model_config.num_attention_heads


def refresh_for_batch(backend, forward_batch):
    pool = backend.token_to_kv_pool
    backend.batch_swa_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


def bind_batch_mapping(backend, pool):
    backend.batch_mapping = getattr(pool, "full_to_swa_index_mapping", None)


def swa_rows(backend, rows):
    if backend._swa_kv_pool is not None:
        return backend._swa_kv_pool.translate_loc_from_full_to_swa(rows)
    return rows
