"""A resolved pool's mirror in a file that also holds a descriptor writing the instance's
``__dict__`` by a computed name (for geometry): nothing there writes the mirror or the pool, so
gates on the mirror stay the fix itself (a fix of the mirror is another matter: it must prove
more, and is not offered here)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Pinned:
    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        value = obj.model_config.head_dim
        obj.__dict__[self.name] = value
        return value


class DescribedBackend(AttentionBackend):
    head_dim = Pinned()

    def __init__(self, model_runner):
        self.model_config = model_runner.model_config
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:
            return k
        return q
