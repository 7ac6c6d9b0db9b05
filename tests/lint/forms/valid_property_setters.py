"""Property setters whose stores follow the pool: run per forward, on the swap point itself (in a
base too: every FROZEN_KV swap assigns it), or given geometry only."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ForwardSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size

    @property
    def view_pool(self):
        return self._view

    @view_pool.setter
    def view_pool(self, pool):
        self._view = pool
        self._windowed = isinstance(pool, SWAKVPool)

    def init_forward_metadata(self, forward_batch):
        self.view_pool = self.token_to_kv_pool
        if self._windowed:
            forward_batch.swa = True


class GeometrySetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size

    @property
    def window(self):
        return self._window

    @window.setter
    def window(self, size):
        self._window = size or -1
        self._windowed = size is not None

    def init_forward_metadata(self, forward_batch):
        if self._windowed and self._window > 0:
            forward_batch.window = self._window


class _SwapSetterBase(AttentionBackend):
    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self._rows = getattr(pool, "full_to_swa_index_mapping", None)


class InheritedSwapSetterAttnBackend(_SwapSetterBase):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if self._rows is not None:
            forward_batch.rows = self._rows
