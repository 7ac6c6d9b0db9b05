"""Helpers whose decision is on the allocator's own answer: the allocator is asked first, in
the decision's test, and its pool taken when it has one, the active pool never looked at. A
branch of such a decision is no fallback, so these are no resolvers: what they hand back is
the allocator's pool kept (a draft runner's is the target's), as when it is asked alone."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def shared_window_pool(runner):
    if hasattr(runner.token_to_kv_pool_allocator, "get_kvcache"):
        return runner.token_to_kv_pool_allocator.get_kvcache()
    return None


def typed_shared_pool(runner):
    allocator = runner.token_to_kv_pool_allocator
    return allocator.get_kvcache() if isinstance(allocator.get_kvcache(), SWAKVPool) else None


def matched_shared_pool(runner):
    match runner.token_to_kv_pool_allocator.get_kvcache():
        case SWAKVPool() as pool:
            return pool
        case _:
            return None


class SharedDecisionAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = shared_window_pool(model_runner)  # expect: KVP001
        self.typed_pool = typed_shared_pool(model_runner)  # expect: KVP001
        self.matched_pool = matched_shared_pool(model_runner)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.typed_pool is not None:  # expect: KVP003
            forward_batch.loc = self.typed_pool.translate_loc_from_full_to_swa(forward_batch.loc)
        if self.matched_pool is not None:  # expect: KVP003
            forward_batch.window = self.matched_pool.sliding_window_size
