"""The base backend: decides once whether the pool is a sliding-window pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class HybridWindowAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.has_window_pool = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.window_pool = self.token_to_kv_pool if self.has_window_pool else None  # expect: KVP001

    def window_enabled(self) -> bool:
        return self.has_window_pool
