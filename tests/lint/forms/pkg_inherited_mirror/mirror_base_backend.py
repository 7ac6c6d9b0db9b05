"""The base resolves its SWA pool through the allocator and mirrors it in a flag."""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class MirrorBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None  # expect: KVP004

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        if self.use_sliding_window_kv_pool:
            forward_batch.swa_loc = self._swa_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
