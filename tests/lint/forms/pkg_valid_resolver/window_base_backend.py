"""A base backend whose SWA flag is a live view of the resolved pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .pool_resolution import page_count, resolve_window_pool


class WindowBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.max_pages = page_count(model_runner.model_config.context_len, self.page_size)
        self._swa_kv_pool = resolve_window_pool(model_runner)

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return self._swa_kv_pool is not None

    @property
    def active_is_window_pool(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)
