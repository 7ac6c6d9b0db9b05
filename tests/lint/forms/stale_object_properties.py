"""A helper object built around the pool in __init__ answers questions through properties: each
answer is computed from the pool the object kept, so a forward deciding on it decides for the
pool of __init__."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowView:
    def __init__(self, pool, page_size):
        self._pool = pool
        self.page_size = page_size

    @property
    def windowed(self) -> bool:
        return isinstance(self._pool, SWAKVPool)

    @property
    def half(self):
        return getattr(self._pool, "swa_kv_pool", None)

    @property
    def rounding(self) -> int:
        return self.page_size * 2


class ViewedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.view = WindowView(model_runner.token_to_kv_pool, model_runner.page_size)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.view.windowed:  # expect: KVP003
            forward_batch.window_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.view.half is not None:  # expect: KVP003
            return self.view.half.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id), self.view.rounding
