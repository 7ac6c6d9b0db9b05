"""Look-alikes of an object a setup method builds: one holding geometry only (a chunk size, a
window), tested on every forward, and one built again from the live pool on every forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ChunkShape:
    def __init__(self, chunk, window=0):
        self.chunk = chunk
        self.window = window


class ShapedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.shape = self._build_shape(model_runner)

    def _build_shape(self, model_runner):
        return ChunkShape(16, model_runner.sliding_window_size or 0)

    def _live_shape(self):
        pool = self.token_to_kv_pool
        return ChunkShape(16, 1 if isinstance(pool, SWAKVPool) else 0)

    def init_forward_metadata(self, forward_batch):
        if self.shape.window > 0 and self.shape.chunk:
            forward_batch.window = self.shape.window
        live = self._live_shape()
        if live.window:
            forward_batch.swa_loc = forward_batch.out_cache_loc
