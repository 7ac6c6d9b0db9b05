"""#27491's resolution written inline, in ``__init__`` or in a hook it calls: the active pool
if it is SWA, else the pool the allocator hands out. Every branch storing the pool attribute is
that resolver's, so the pool, a mirror of it and gates on the mirror are the fix itself."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class InlineResolvedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            self._swa_kv_pool = active
        else:
            kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
            self._swa_kv_pool = kvcache if isinstance(kvcache, SWAKVPool) else None
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:
            return k
        return q


class HookResolvedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._setup(model_runner)

    def _setup(self, model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            self._swa_kv_pool = active
        else:
            self._swa_kv_pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        self.windowed = self._swa_kv_pool is not None and self.window > 0

    @property
    def window(self):
        return 1

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:
            return k
        return q
