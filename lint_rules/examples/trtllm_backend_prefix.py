"""A TRTLLM-style MHA backend with the pre-fix SWA pool handling (bundled lint example).

Shape of the bug behind SGLang issue #26957: ``__init__`` decides once, from whatever pool is
active while the backend is built, whether the backend is "SWA" and which SWA pool to translate
indices against. A FROZEN_KV MTP draft worker is built on its own full pool and is pointed at the
target's SWA pool on every forward, so the decision is stale there: SWA layers receive full-pool
page indices and the kernel reads past the SWA k-cache. Read as text by ``poolguard demo`` and the
tests; never imported.
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


class PrefixTRTLLMHAAttnBackend(FlashInferAttnBackend):
    """Decode/extend through trtllm kernels; SWA layers read a translated page table."""

    def __init__(self, model_runner, skip_prefill: bool = False):
        super().__init__(model_runner, skip_prefill=skip_prefill)
        self.page_size = model_runner.page_size
        self.max_context_len = model_runner.model_config.context_len
        self.device = model_runner.device

        # The active pool at construction time: the draft's own pool for an MTP draft.
        kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool) else None
        self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)

        self.forward_tables: Optional[PageTables] = None
        self.graph_tables = {}

    def _swa_page_table_for(self, page_table: torch.Tensor) -> Optional[torch.Tensor]:
        """Translate a full-pool page table into SWA-pool pages, or None for non-SWA models."""
        if not self.use_sliding_window_kv_pool:
            return None
        full_locs = page_table * self.page_size
        swa_locs = self._swa_kv_pool.translate_loc_from_full_to_swa(full_locs)
        return swa_locs // self.page_size

    def _cache_loc_for(self, layer, forward_batch) -> torch.Tensor:
        """Where this layer writes the new tokens' K/V."""
        if self.use_sliding_window_kv_pool:
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
        pool = self.token_to_kv_pool  # rebound per forward by the FROZEN_KV MTP draft
        if save_kv_cache:
            pool.set_kv_buffer(layer, cache_loc, k, v, layer.k_scale, layer.v_scale)
        k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
        return self._launch(q, k_cache, v_cache, self._page_table_for(layer), forward_batch)

    def _launch(self, q, k_cache, v_cache, page_table, forward_batch):
        """Stand-in for flashinfer's trtllm decode kernel call."""
        raise NotImplementedError("example backend: read by the linter, never run")
