"""Correct look-alikes of the captured writers: closures that read the pool from the backend
when they are called, or that capture only geometry, keep nothing the swap changes."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveWriterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, num_steps):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.writers = [self._writer_for(step) for step in range(num_steps)]
        page_size = model_runner.page_size
        pool = self.token_to_kv_pool
        head_dim = pool.head_dim

        def pages(loc):
            torch.div(loc, page_size, rounding_mode="floor")
            return loc.new_empty((loc.numel(), head_dim))

        self.pages = pages
        self.remap = self._remapper()

    def _remapper(self):
        """Made for every pool: what it does is decided when it is called."""
        def remap(loc):
            pool = self.token_to_kv_pool
            if isinstance(pool, SWAKVPool):
                return pool.full_to_swa_index_mapping[loc]
            return loc

        return remap

    def _writer_for(self, step):
        backend = self

        def write(layer, loc, k, v):
            pool = backend.token_to_kv_pool
            (getattr(pool, "swa_kv_pool", None) or pool).set_kv_buffer(layer, loc, k, v)

        return write

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache and self.writers:
            self.writers[0](layer, forward_batch.out_cache_loc, k, v)
        if self.remap is not None:
            return self.remap(forward_batch.out_cache_loc)
        return self.pages(forward_batch.out_cache_loc)


class CompiledGeometryAttnBackend(AttentionBackend):
    """A compiled closure over geometry only, handed the live pool's buffer on each call."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        head_dim = self.token_to_kv_pool.head_dim

        def gather(buffer, loc):
            return buffer[loc].view(-1, head_dim)

        self._gather = torch.compile(gather, dynamic=False)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        return self._gather(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
