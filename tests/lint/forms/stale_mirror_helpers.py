"""The same helpers over a mirror of a pool the class keeps as the active pool was at
construction (no allocator asked): the mirror is a stale SWA flag, and so is each verdict a
helper builds from it."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class KeptMirrorVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = pool if isinstance(pool, SWAKVPool) else None  # expect: KVP001
        self.windowed = self._swa_kv_pool is not None  # expect: KVP002

    def _fused_write(self, layer):
        return self.kv_cache_dtype == "fp8" and not self.windowed  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._fused_write(layer):
            q = q + 1
        return q
