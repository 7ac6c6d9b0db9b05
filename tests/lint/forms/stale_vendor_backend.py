"""A plausible new vendor backend: mostly geometry, with stale SWA state in the usual places."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.radix_attention import AttentionType
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.model_executor.forward_batch_info import ForwardBatch

if TYPE_CHECKING:
    from sglang.srt.layers.radix_attention import RadixAttention
    from sglang.srt.model_executor.model_runner import ModelRunner


@dataclass
class NeuronMetadata:
    page_table: Optional[torch.Tensor] = None
    swa_page_table: Optional[torch.Tensor] = None
    cache_seqlens: Optional[torch.Tensor] = None


class NeuronAttnBackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner, skip_prefill: bool = False):
        super().__init__()
        self.device = model_runner.device
        self.skip_prefill = skip_prefill
        self.page_size = model_runner.page_size
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self.max_context_len = model_runner.model_config.context_len
        self.num_kv_heads = model_runner.model_config.get_num_kv_heads(1)
        self.head_dim = model_runner.model_config.head_dim
        self.sliding_window_size = model_runner.sliding_window_size
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.forward_metadata: Optional[NeuronMetadata] = None
        self.encoder_only = any(
            getattr(m, "attn_type", None) == AttentionType.ENCODER_ONLY
            for m in model_runner.model.modules()
        )
        kv_pool = self.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool) and kv_pool.swa_layer_nums > 0  # expect: KVP002
        self._swa_kv_pool = kv_pool if self.use_sliding_window_kv_pool else None  # expect: KVP001

    def init_cuda_graph_state(self, max_bs: int, max_num_tokens: int):
        max_pages = (self.max_context_len + self.page_size - 1) // self.page_size
        self.cuda_graph_page_table = torch.zeros(max_bs, max_pages, dtype=torch.int32, device=self.device)
        self.cuda_graph_full_to_swa = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        self.cuda_graph_swa_page_table = (
            torch.zeros(max_bs, max_pages, dtype=torch.int32, device=self.device)
            if self._swa_kv_pool is not None  # expect: KVP003
            else None
        )

    def init_forward_metadata(self, forward_batch: ForwardBatch):
        metadata = NeuronMetadata(cache_seqlens=forward_batch.seq_lens.to(torch.int32))
        metadata.page_table = self.req_to_token[forward_batch.req_pool_indices]
        if self._swa_kv_pool is not None:  # expect: KVP003
            metadata.swa_page_table = self._swa_kv_pool.translate_loc_from_full_to_swa(metadata.page_table)
        self.forward_metadata = metadata

    def forward_decode(self, q, k, v, layer: RadixAttention, forward_batch: ForwardBatch, save_kv_cache=True):
        is_swa_layer = layer.sliding_window_size is not None and layer.sliding_window_size > -1
        if save_kv_cache:
            loc = forward_batch.out_cache_loc
            self.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)
        table = self.forward_metadata.swa_page_table if is_swa_layer else self.forward_metadata.page_table
        return torch.ops.neuron.paged_decode(q, self.token_to_kv_pool.get_kv_buffer(layer.layer_id), table)
