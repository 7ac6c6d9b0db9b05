"""The same TRTLLM-style backend with the SWA pool resolved correctly (bundled lint example).

The SWA pool is resolved once, through the allocator when needed, and every SWA decision reads
the pool object itself, so a FROZEN_KV MTP draft (pointed at the target's SWA pool per forward)
and an EAGLE draft (its own full pool, the target's allocator) both see the right pool. Read as
text by ``poolguard demo`` and the tests; never imported.
"""
from dataclasses import dataclass
from typing import Optional

import torch

from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class PageTables:
    page_table: torch.Tensor
    swa_page_table: Optional[torch.Tensor] = None


class ResolvedPoolTRTLLMHAAttnBackend(FlashInferAttnBackend):
    """Decode/extend through trtllm kernels; SWA layers read a translated page table."""

    def __init__(self, model_runner, skip_prefill: bool = False):
        super().__init__(model_runner, skip_prefill=skip_prefill)
        self.page_size = model_runner.page_size
        self.max_context_len = model_runner.model_config.context_len
        self.device = model_runner.device
        self._swa_kv_pool: Optional[SWAKVPool] = self._resolve_swa_kv_pool(model_runner)
        self.forward_tables: Optional[PageTables] = None
        self.graph_tables = {}

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        """The SWA pool whose index mapping this backend must use, or None."""
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        # An EAGLE-style draft owns a full pool: the target's SWA mapping does not apply to it.
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        # A FROZEN_KV MTP draft reads the target's KV through the shared allocator's pool.
        get_kvcache = getattr(model_runner.token_to_kv_pool_allocator, "get_kvcache", None)
        pool = get_kvcache() if get_kvcache is not None else None
        return pool if isinstance(pool, SWAKVPool) else None

    def _swa_page_table_for(self, page_table: torch.Tensor) -> Optional[torch.Tensor]:
        """Translate a full-pool page table into SWA-pool pages, or None for non-SWA models."""
        if self._swa_kv_pool is None:
            return None
        full_locs = page_table * self.page_size
        swa_locs = self._swa_kv_pool.translate_loc_from_full_to_swa(full_locs)
        return swa_locs // self.page_size

    def _cache_loc_for(self, layer, forward_batch) -> torch.Tensor:
        """Where this layer writes the new tokens' K/V."""
        if self._swa_kv_pool is not None:
            _, is_swa_layer = self._swa_kv_pool.layers_mapping[layer.layer_id]
            if is_swa_layer:
                return self._swa_kv_pool.translate_loc_from_full_to_swa(
                    forward_batch.out_cache_loc
                )
        return forward_batch.out_cache_loc

    def _page_table_for(self, layer) -> torch.Tensor:
        tables = self.forward_tables
        if tables.swa_page_table is not None:
            _, is_swa_layer = self._swa_kv_pool.layers_mapping[layer.layer_id]
            if is_swa_layer:
                return tables.swa_page_table
        return tables.page_table

    def init_forward_metadata(self, forward_batch):
        page_table = forward_batch.req_to_token_pool.req_to_token[
            forward_batch.req_pool_indices, :: self.page_size
        ] // self.page_size
        self.forward_tables = PageTables(page_table, self._swa_page_table_for(page_table))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        cache_loc = self._cache_loc_for(layer, forward_batch)
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, cache_loc, k, v, layer.k_scale, layer.v_scale)
        k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
        return self._launch(q, k_cache, v_cache, self._page_table_for(layer), forward_batch)

    def _launch(self, q, k_cache, v_cache, page_table, forward_batch):
        """Stand-in for flashinfer's trtllm decode kernel call."""
        raise NotImplementedError("example backend: read by the linter, never run")
