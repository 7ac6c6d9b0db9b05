"""Helpers called from ``__init__`` and lazily filled attributes: outside per-forward code."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _detect_swa(pool) -> bool:
    return type(pool).__name__ in ("SWAKVPool", "SWAKVPoolView")


class InitHelperChainAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._init_swa_state()

    def _init_swa_state(self):
        self._init_translation(self.token_to_kv_pool)
        self.swa_mode = _detect_swa(self.token_to_kv_pool)  # expect: KVP002

    def _init_translation(self, pool):
        self.index_map = pool.full_to_swa_index_mapping  # expect: KVP001

    def _window_table(self, metadata):
        return metadata.swa_page_table if self.swa_mode else metadata.page_table  # expect: KVP003


class LazyFillAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_pool = None

    def _get_swa_pool(self):
        if self._swa_pool is None:
            self._swa_pool = self.token_to_kv_pool.swa_kv_pool  # expect: KVP001
        return self._swa_pool


class StaticFactoryAttnBackend(AttentionBackend):
    """A classmethod factory that builds the state and hands it to ``__init__``."""

    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size

    @classmethod
    def from_runner(cls, model_runner):
        pool = model_runner.token_to_kv_pool
        backend = cls(model_runner)
        backend.swa_pool = pool if isinstance(pool, SWAKVPool) else None  # expect: KVP001
        backend.swa_translate = pool.translate_loc_from_full_to_swa  # expect: KVP001
        return backend
