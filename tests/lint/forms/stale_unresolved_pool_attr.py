"""The resolved-pool attribute by its name only: ``self._swa_kv_pool`` taken straight from the
active pool (no allocator asked) is the pool of that moment, and a test of it later
(``is None or ...``) decides on stale state like any other kept pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class UnresolvedPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self._swa_kv_pool = pool if isinstance(pool, SWAKVPool) else None  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self._swa_kv_pool is None or layer.sliding_window_size < 0:  # expect: KVP003
            return q
        return v


class PickedPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self._swa_kv_pool = self._pick(model_runner)  # expect: KVP001

    @staticmethod
    def _pick(model_runner):
        pool = model_runner.token_to_kv_pool
        return getattr(pool, "swa_kv_pool", None) and pool

    def init_forward_metadata(self, forward_batch):
        swa = self._swa_kv_pool
        forward_batch.swa = swa is not None and forward_batch.window > 0  # expect: KVP003


class InlinePickAttnBackend(AttentionBackend):
    """The inline pick of the active pool alone (the allocator asked for something else): the
    pool of that moment, whatever the attribute is called."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.backing = model_runner.token_to_kv_pool_allocator.get_kvcache()
        window = self.token_to_kv_pool
        if not isinstance(window, SWAKVPool):
            window = None
        self._window = window  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self._window is not None:  # expect: KVP003
            return self._window.get_key_buffer(layer.layer_id)
        return q
