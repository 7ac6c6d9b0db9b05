"""Helpers a backend hands itself to: they store pool state on it, or decide on its flags."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def attach_swa_pool(backend):
    pool = backend.token_to_kv_pool
    backend.swa_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


def mark_windowed(owner, pool):
    owner.layout.windowed = isinstance(pool, SWAKVPool)


def keep_mapping(backend, pool):
    backend.full_to_swa = getattr(pool, "full_to_swa_index_mapping", None)


def main_of(pool):
    return getattr(pool, "main_pool", pool)


def bind_main_mapping(backend, pool):
    main = main_of(pool)
    backend.main_map = main.full_to_swa_index_mapping


def windowed(backend):
    return backend.layout.windowed


def page_rows(backend, rows):
    if backend.swa_pool is not None:
        return backend.swa_pool.translate_loc_from_full_to_swa(rows)
    return rows
