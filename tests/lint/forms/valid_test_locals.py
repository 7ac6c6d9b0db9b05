"""Correct look-alikes of a local holding a test: the test made on the live pool per forward,
a test of geometry, a test of the forward batch."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class HeldTestLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size
        self.page_size = model_runner.page_size

    def init_forward_metadata(self, forward_batch):
        windowed = self.window > 0 and self.page_size == 1
        live = isinstance(self.token_to_kv_pool, SWAKVPool) and windowed
        loc = forward_batch.out_cache_loc
        empty = forward_batch.batch_size == 0
        if empty:
            return
        forward_batch.swa_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
            loc) if live else loc
