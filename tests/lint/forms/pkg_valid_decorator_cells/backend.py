from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import decorators
from .decorators import paged, window_aware


class CellMemoBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @window_aware
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q

    @paged
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


class DecoratorGateBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        kept = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kept if isinstance(kept, SWAKVPool) else None

    @decorators.gated
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
