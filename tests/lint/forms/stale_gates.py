"""Every decision form reading a persisted SWA flag, directly or through helpers and properties."""
from __future__ import annotations

from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class RunnerFlagAttnBackend(AttentionBackend):
    """``model_runner.is_hybrid_swa`` is the draft runner's config: False under FROZEN_KV MTP."""

    def __init__(self, model_runner):
        super().__init__()
        self.is_hybrid_swa = model_runner.is_hybrid_swa  # expect: KVP002
        self.hybrid = getattr(model_runner, "is_hybrid_swa", False)  # expect: KVP002
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int):
        self.cuda_graph_page_table = torch.zeros(max_bs, 64, dtype=torch.int32)
        if self.is_hybrid_swa:  # expect: KVP003
            self.cuda_graph_swa_page_table = torch.zeros(max_bs, 64, dtype=torch.int32)

    def _pick(self, metadata, layer):
        if layer.sliding_window_size <= 0:
            return metadata.page_table
        elif self.hybrid:  # expect: KVP003
            return metadata.swa_page_table
        return metadata.page_table

    def _drain(self, queue):
        while self.is_hybrid_swa and queue:  # expect: KVP003
            queue.pop()

    def _swa_layers(self, layers):
        return [layer for layer in layers if self.is_hybrid_swa]  # expect: KVP003

    def _check(self, layer):
        assert not self.hybrid or layer.sliding_window_size > 0  # expect: KVP003

    def _kind(self):
        match self.is_hybrid_swa:  # expect: KVP003
            case True:
                return "swa"
            case _:
                return "full"


class GetattrFlagAttnBackend(TRTLLMHAAttnBackend):
    """The inherited flag read defensively; still the flag, not the pool."""

    def _out_cache_loc(self, layer, forward_batch):
        if getattr(self, "use_sliding_window_kv_pool", False) and layer.sliding_window_size > 0:  # expect: KVP003
            return self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc


class HelperGateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _uses_swa(self) -> bool:
        return self._swa

    @property
    def swa_active(self) -> bool:
        return self._swa

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = forward_batch.swa_page_table if self._uses_swa() else forward_batch.page_table  # expect: KVP003
        if self.swa_active and layer.sliding_window_size > 0:  # expect: KVP003
            table = table[:, : layer.sliding_window_size]
        return self._decode(q, table)

    def _mode_string(self):
        return self._swa and "swa" or "full"  # expect: KVP003


class AliasGateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.window_kv = isinstance(model_runner.token_to_kv_pool_allocator.get_kvcache(), SWAKVPool)  # expect: KVP002

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        use_window = self.window_kv
        if use_window:  # expect: KVP003
            return self._swa_extend(q, k, v, layer, forward_batch)
        return self._full_extend(q, k, v, layer, forward_batch)


class FlaggedBaseAttnBackend(AttentionBackend):
    """A base class storing the flag; the subclass and a mixin below gate on it."""

    def __init__(self, model_runner):
        super().__init__()
        self._swa_kv_pool: Optional[SWAKVPool] = None
        self.sliding_kv = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _is_sliding(self):
        return self.sliding_kv


class SwaTableMixin:
    """Not a backend itself: mixed into one, so its gates read the backend's flag."""

    def _swa_table(self, metadata):
        if not self.sliding_kv:  # expect: KVP003
            return None
        return metadata.swa_page_table


class FlaggedChildAttnBackend(SwaTableMixin, FlaggedBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._is_sliding():  # expect: KVP003
            return self._swa_table(self.forward_metadata)
        return self.forward_metadata.page_table


class MirrorAttnBackend(AttentionBackend):
    """Mirrors of the resolved pool (opt-in KVP004) and the gates on them."""

    def __init__(self, model_runner):
        super().__init__()
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.has_swa_pool = self._swa_kv_pool is not None  # expect: KVP004
        self.no_window = self._swa_kv_pool is None  # expect: KVP004

    def page_table(self, metadata):
        return metadata.page_table if self.no_window else metadata.swa_page_table

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None
