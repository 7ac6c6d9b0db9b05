"""Closures that keep using what they captured: a writer or reader made once, closing over a
sub-pool or buffer read from the pool at that moment, writes into (or reads from) that object on
every call after the swap, whether it returns it or not; kept on the backend, it is stale state."""
from __future__ import annotations

import functools

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class CapturedWriterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, num_steps):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.writers = {step: self._writer_for(step) for step in range(num_steps)}  # expect: KVP001
        self.flush = self._flusher()  # expect: KVP001
        swa = self.token_to_kv_pool.swa_kv_pool

        def store_window(layer, loc, k, v):
            swa.set_kv_buffer(layer, loc, k, v)

        self.store_window = store_window  # expect: KVP001
        self.remap = self._remapper()  # expect: KVP001

    def _remapper(self):
        """A closure made only when the pool is an SWA pool: whether it exists is that test."""
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            table = pool.full_to_swa_index_mapping
            return lambda loc: table[loc]
        return None

    def _writer_for(self, step):
        buffers = self.token_to_kv_pool.swa_kv_pool.k_buffer

        def write(layer_id, loc, k):
            buffers[layer_id].index_copy_(0, loc, k)

        return write

    def _flusher(self):
        sub = getattr(self.token_to_kv_pool, "swa_kv_pool", None)
        return functools.partial(self._flush_into, sub)

    def _flush_into(self, sub, layer):
        if sub is not None:
            sub.get_key_buffer(layer.layer_id).zero_()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.writers[0](layer.layer_id, forward_batch.out_cache_loc, k)
            self.store_window(layer, forward_batch.out_cache_loc, k, v)
        if self.remap is None:  # expect: KVP003
            return torch.empty_like(q)
        return self.remap(forward_batch.out_cache_loc)


class CompiledGatherAttnBackend(AttentionBackend):
    """A compiled closure (``torch.compile`` keeps the function it wraps) over the window
    sub-pool read at init."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = getattr(self.token_to_kv_pool, "swa_kv_pool", None)

        def gather(layer_id, loc):
            return window.get_key_buffer(layer_id)[loc]

        self._gather = torch.compile(gather, dynamic=False)  # expect: KVP001
        self._first = torch.compile(lambda loc: window.get_key_buffer(0)[loc])  # expect: KVP001
