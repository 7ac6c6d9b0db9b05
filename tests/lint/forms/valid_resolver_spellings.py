"""Module resolvers spelled otherwise than #27491: the allocator bound to a local first and
its pool asked only after the active pool's answer returned, the allocator's pool asked up
front but chosen only in the ternary's other branch, and the active pool first among the
candidates of a loop or a generator. Each asks the allocator only as a fallback: the pool it
resolves is the fix itself, and the flag testing it is live."""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_pool_by_handle(runner) -> Optional[SWAKVPool]:
    allocator = runner.token_to_kv_pool_allocator
    if isinstance(runner.token_to_kv_pool, SWAKVPool):
        return runner.token_to_kv_pool
    pool = getattr(allocator, "get_kvcache", lambda: None)()
    return pool if isinstance(pool, SWAKVPool) else None


def window_pool_eager(runner) -> Optional[SWAKVPool]:
    active = runner.token_to_kv_pool
    shared = runner.token_to_kv_pool_allocator.get_kvcache()
    return active if isinstance(active, SWAKVPool) else shared


def window_pool_of_candidates(runner) -> Optional[SWAKVPool]:
    for pool in (runner.token_to_kv_pool, runner.token_to_kv_pool_allocator.get_kvcache()):
        if isinstance(pool, SWAKVPool):
            return pool
    return None


def window_pool_first(runner) -> Optional[SWAKVPool]:
    return next((p for p in [runner.token_to_kv_pool, runner.token_to_kv_pool_allocator.get_kvcache()]
                 if isinstance(p, SWAKVPool)), None)


class SpelledResolverAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = window_pool_by_handle(model_runner)
        self.eager_pool = window_pool_eager(model_runner)
        self.candidate_pool = window_pool_of_candidates(model_runner)
        self.first_pool = window_pool_first(model_runner)

    @property
    def windowed(self) -> bool:
        return self._swa_kv_pool is not None

    def init_forward_metadata(self, forward_batch):
        if self.windowed:
            forward_batch.loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)
        if self.eager_pool is not None and self.candidate_pool is not None and self.first_pool:
            forward_batch.window = self.eager_pool.sliding_window_size
