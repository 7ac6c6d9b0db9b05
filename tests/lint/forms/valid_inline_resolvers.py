"""#27491's resolution written inline, into an attribute of any name: the active pool if it is
an SWA pool, else the allocator's (a FROZEN_KV draft's target pool), else None. It is what the
swap hands in later, whatever the attribute is called, here or in a wrapper of ``__init__``."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class InlineWindowAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        window = self.token_to_kv_pool
        if not isinstance(window, SWAKVPool):
            backing = self.token_to_kv_pool_allocator.get_kvcache()
            window = backing if isinstance(backing, SWAKVPool) else None
        self._window = window

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self._window is not None and layer.sliding_window_size > 0:
            return self._window.get_key_buffer(layer.layer_id)
        return q


def _resolving(cls):
    original = cls.__init__

    def __init__(self, model_runner, *args, **kwargs):
        original(self, model_runner, *args, **kwargs)
        pool = model_runner.token_to_kv_pool
        if not isinstance(pool, SWAKVPool):
            kept = model_runner.token_to_kv_pool_allocator.get_kvcache()
            pool = kept if isinstance(kept, SWAKVPool) else None
        self.window_pool = pool

    cls.__init__ = __init__
    return cls


@_resolving
class WrappedResolverAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.window_pool is not None:
            return self.window_pool.get_key_buffer(layer.layer_id)
        return q
