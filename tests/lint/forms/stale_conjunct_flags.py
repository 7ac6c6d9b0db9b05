"""Flags that join the pool's type test with other conditions (issue 13, fp6).

``self.use_swa = isinstance(pool, SWAKVPool) and self.window > 0``: the pool test alone would
drop the window condition, so no fix is offered, and the remedy in the message says to test the
resolved pool in place of the type test only (tests/lint/test_output.py checks the wording). A
condition on the tested pool itself (``pool.swa_layer_nums > 0``) is one a #27491 resolver
carries: the plain remedy. So is a flag that only ORs type tests together.
"""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import BaseSWAKVPool, SWAKVPool


class WindowConjunctAttnBackend(AttentionBackend):
    """The type test and a window size, with a resolved pool beside them."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.window = model_runner.sliding_window_size
        self.use_swa = isinstance(self.token_to_kv_pool, SWAKVPool) and self.window > 0  # expect: KVP002

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        kept = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kept if isinstance(kept, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_swa:  # expect: KVP003
            return forward_batch.swa_page_table
        return forward_batch.page_table


class LayerCountConjunctAttnBackend(AttentionBackend):
    """The type test and a count read off the pool, on several lines (ascend's shape)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa_pool_used = (  # expect: KVP002
            isinstance(self.token_to_kv_pool, SWAKVPool)
            and self.token_to_kv_pool.swa_layer_nums > 0
        )

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return forward_batch.swa_page_table if self.swa_pool_used else None  # expect: KVP003


class EitherTypeAttnBackend(AttentionBackend):
    """Two type tests ORed: the pool test stands for both."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.any_swa = isinstance(pool, SWAKVPool) or isinstance(pool, BaseSWAKVPool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if not self.any_swa:  # expect: KVP003
            return forward_batch.page_table
        return forward_batch.swa_page_table
