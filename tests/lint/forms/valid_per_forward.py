"""Correct look-alikes: SWA state decided again from the rebound pool on every forward."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


@dataclass
class PerForwardMetadata:
    page_table: torch.Tensor
    swa_page_table: Optional[torch.Tensor] = None


class PerForwardFlagAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.use_sliding_window_kv_pool = False
        self.forward_metadata: Optional[PerForwardMetadata] = None

    def init_forward_metadata(self, forward_batch: ForwardBatch):
        pool = self.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(pool, SWAKVPool)
        self.swa_mapping = pool.full_to_swa_index_mapping if self.use_sliding_window_kv_pool else None
        page_table = self.req_to_token[forward_batch.req_pool_indices]
        swa_table = None
        if self.use_sliding_window_kv_pool:
            swa_table = pool.translate_loc_from_full_to_swa(page_table)
        self.forward_metadata = PerForwardMetadata(page_table, swa_table)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            return self._decode(q, self.forward_metadata.swa_page_table)
        return self._decode(q, self.forward_metadata.page_table)


class GraphReplayAttnBackend(AttentionBackend):
    """CUDA-graph capture and replay run once per forward: state written there is fresh."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.graph_metadata = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens,
                                                 encoder_lens, forward_mode, spec_info):
        self.graph_metadata[bs] = PerForwardMetadata(page_table=req_pool_indices)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum,
                                                encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.graph_metadata[bs].swa_page_table = pool.translate_loc_from_full_to_swa(
                self.graph_metadata[bs].page_table
            )


class PassThePoolAttnBackend(AttentionBackend):
    """Pools handed to kernels and helpers at call time, never kept."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
        write = pool.set_kv_buffer
        if save_kv_cache:
            write(layer, forward_batch.out_cache_loc, k, v)
        return torch.ops.sglang.extend(q, k_cache, v_cache, _window_of(pool, layer))


def _window_of(pool, layer):
    return layer.sliding_window_size if isinstance(pool, SWAKVPool) else -1
