"""The cursor and the backend that re-points it per forward."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import HookBase


class KVCursor:
    def __init__(self, page_size):
        self.page_size = page_size
        self.pool = None
        self.swa_pool = None

    def rebind(self, pool):
        self.pool = pool
        self.swa_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


class CursorBackend(HookBase):
    def _build_helpers(self, model_runner):
        self.cursor = KVCursor(self.page_size)

    def init_forward_metadata(self, forward_batch):
        self.cursor.rebind(self.token_to_kv_pool)
        if self.cursor.swa_pool is not None:
            return self.cursor.swa_pool
        return None
