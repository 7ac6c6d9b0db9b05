"""Helpers the backends hand themselves to."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowPageTable:
    def __init__(self, translate, page_size):
        self.translate = translate
        self.page_size = page_size

    @classmethod
    def build(cls, backend):
        pool = backend.token_to_kv_pool
        if not hasattr(pool, "translate_loc_from_full_to_swa"):
            return None
        return cls(pool.translate_loc_from_full_to_swa, backend.page_size)

    def pages(self, tokens):
        return self.translate(tokens) // self.page_size


def window_buffers(owner):
    kv_pool = owner.model_runner.token_to_kv_pool
    if isinstance(kv_pool, SWAKVPool):
        return kv_pool.swa_kv_pool
    return None
