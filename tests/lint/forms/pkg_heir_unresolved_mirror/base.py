"""The base: the resolved name, filled from the active pool alone."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Base(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = pool if isinstance(pool, SWAKVPool) else None  # expect: KVP001
