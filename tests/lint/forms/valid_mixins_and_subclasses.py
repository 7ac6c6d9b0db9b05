"""Correct look-alikes: a resolver mixin, subclasses gating on the resolved pool, live helpers."""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_backend import TritonAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SwaResolverMixin:
    def _resolve_swa_kv_pool(self, model_runner) -> Optional[SWAKVPool]:
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def _swa_enabled(self) -> bool:
        return self._swa_kv_pool is not None


class ResolvedTritonAttnBackend(SwaResolverMixin, TritonAttnBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__(model_runner, skip_prefill)
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    def _window_kv_indices(self, layer, kv_indices):
        if self._swa_enabled() and layer.sliding_window_size > 0:
            return self._swa_kv_pool.translate_loc_from_full_to_swa(kv_indices)
        return kv_indices


class ResolvedDraftAttnBackend(ResolvedTritonAttnBackend):
    """An EAGLE draft owns a full pool: the resolver returns None there, which is right."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_kv_pool is None:
            return self._full_decode(q, k, v, layer, forward_batch)
        return self._swa_decode(q, k, v, layer, forward_batch)


class NonSwaModelAttnBackend(AttentionBackend):
    """A backend for models without sliding windows keeps geometry only."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.v_head_dim = model_runner.token_to_kv_pool.get_value_buffer(0).shape[-1]
        self.scaling = model_runner.model_config.scaling
        self.layer_ids = list(range(model_runner.start_layer, model_runner.end_layer))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return self._decode(q, k_cache)


class LiveSwaKindAttnBackend(AttentionBackend):
    """A helper method that evaluates the current pool each time it is asked."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def _current_swa_pool(self) -> Optional[SWAKVPool]:
        pool = self.token_to_kv_pool
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        swa_pool = self._current_swa_pool()
        loc = forward_batch.out_cache_loc
        if swa_pool is not None and layer.sliding_window_size > 0:
            loc = swa_pool.translate_loc_from_full_to_swa(loc)
        return self._extend(q, k, v, layer, loc)
