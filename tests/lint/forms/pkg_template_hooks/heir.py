from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import WindowedBase


class HookedBackend(WindowedBase):
    def _detect_windowed(self, pool):
        return isinstance(pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:  # expect: KVP003
            return q
        return k
