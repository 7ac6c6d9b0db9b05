from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import decorators
from .decorators import translating, window_aware


class CellMemoBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @window_aware  # expect: KVP002,KVP003
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q

    @translating(strict=True)  # expect: KVP001
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


class DecoratorGateBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_paged = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    @decorators.gated  # expect: KVP003
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
