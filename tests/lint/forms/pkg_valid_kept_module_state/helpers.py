"""Helpers handed the backend itself: geometry read once, the pool read per call."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Pager:
    def __init__(self, page_size, rows):
        self.page_size = page_size
        self.rows = rows

    @staticmethod
    def for_backend(backend):
        if backend.page_size <= 1:
            return None
        return Pager(backend.page_size, backend.model_runner.model_config.context_len)


class LiveTranslator:
    def __init__(self, backend):
        self.backend = backend

    @classmethod
    def attach(cls, backend):
        return cls(backend)

    def __call__(self, loc):
        kv_pool = self.backend.token_to_kv_pool
        if isinstance(kv_pool, SWAKVPool):
            return kv_pool.translate_loc_from_full_to_swa(loc)
        return loc


def page_rows(backend):
    return backend.model_runner.model_config.context_len // backend.page_size


class WindowProbe:
    @staticmethod
    def half_of(backend):
        kv_pool = backend.token_to_kv_pool
        return kv_pool.swa_kv_pool if isinstance(kv_pool, SWAKVPool) else None


def is_windowed(backend):
    return isinstance(backend.token_to_kv_pool, SWAKVPool)
