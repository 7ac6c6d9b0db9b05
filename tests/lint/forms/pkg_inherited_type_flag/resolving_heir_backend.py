"""The heir resolves its own pool through the allocator but gates on the base's type flag."""
from __future__ import annotations

from typing import Optional

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .type_flag_base_backend import TypeFlagBaseAttnBackend


class ResolvingHeirAttnBackend(TypeFlagBaseAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:  # expect: KVP003
            return self._swa_decode(q, forward_batch)
        return self._decode(q, forward_batch)
