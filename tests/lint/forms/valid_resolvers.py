"""Correct look-alikes: SWA pools resolved through the allocator, and gates on the pool object."""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
    active = model_runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
        return None
    allocator = model_runner.token_to_kv_pool_allocator
    kvcache = allocator.get_kvcache() if hasattr(allocator, "get_kvcache") else None
    return kvcache if isinstance(kvcache, SWAKVPool) else None


class StaticResolverAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool: Optional[SWAKVPool] = self._resolve_swa_kv_pool(model_runner)
        if self._swa_kv_pool is not None:
            self._swa_full_to_swa_mapping = self._swa_kv_pool.full_to_swa_index_mapping
        else:
            self._swa_full_to_swa_mapping = None

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        active_pool = model_runner.token_to_kv_pool
        if isinstance(active_pool, SWAKVPool):
            return active_pool
        if model_runner.is_draft_worker:
            if not model_runner.spec_algorithm.is_frozen_kv_mtp():
                return None
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def _alloc_swa_page_table(self, max_bs, max_num_pages):
        if self._swa_kv_pool is None:
            return None
        return self._new_table(max_bs, max_num_pages)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        swa = self._swa_kv_pool is not None and layer.sliding_window_size > 0
        table = self.forward_metadata.swa_page_table if swa else self.forward_metadata.page_table
        return self._decode(q, table)


class ModuleResolverAttnBackend(FlashInferAttnBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__(model_runner, skip_prefill=skip_prefill)
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)

    def _translate(self, loc):
        pool = getattr(self, "_swa_kv_pool", None)
        if pool is None:
            return loc
        return pool.translate_loc_from_full_to_swa(loc)

    def _maybe_window(self, layer, table):
        assert self._swa_kv_pool is not None or layer.sliding_window_size <= 0
        return table


class LivePropertyAttnBackend(AttentionBackend):
    """The flag is a property over the pool of this forward: it cannot go stale."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)

    @property
    def swa_pool(self) -> Optional[SWAKVPool]:
        pool = self.token_to_kv_pool
        return pool if isinstance(pool, SWAKVPool) else None

    def _out_cache_loc(self, layer, forward_batch):
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            return self.swa_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc


class LiveClosureAttnBackend(AttentionBackend):
    """A closure that reads ``self.token_to_kv_pool`` when it is called, not when it is made."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

        def swa_translate(loc):
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)

        self.swa_translate = swa_translate
        self.to_swa = lambda loc: self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
