"""Correct look-alikes of the helper properties: a view that reads the pool of the backend it
holds back on every read, a view built per forward on the live pool, and a property of geometry."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class BackedView:
    def __init__(self, backend, page_size):
        self.backend = backend
        self.page_size = page_size

    @property
    def windowed(self) -> bool:
        return isinstance(self.backend.token_to_kv_pool, SWAKVPool)

    @property
    def rounding(self) -> int:
        return self.page_size * 2


class PoolView:
    def __init__(self, pool):
        self._pool = pool

    @property
    def windowed(self) -> bool:
        return isinstance(self._pool, SWAKVPool)


class BackedViewAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.view = BackedView(self, model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        if self.view.windowed and self.view.rounding > 0:
            forward_batch.window_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if PoolView(self.token_to_kv_pool).windowed:
            return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
