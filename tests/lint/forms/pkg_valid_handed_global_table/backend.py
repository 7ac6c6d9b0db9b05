# The same module table, filled on every forward with the mapping of the pool that forward
# reads (the backend's swapped token_to_kv_pool): looked up in that forward, never stale.
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .registry import lookup_index_mapping, publish_index_mapping, register_backend

if TYPE_CHECKING:
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch
    from sglang.srt.model_executor.model_runner import ModelRunner


@register_backend("windowed_triton")
class RegistryWindowedBackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.device = model_runner.device
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_metadata: Optional[dict] = None

    def init_forward_metadata(self, forward_batch: ForwardBatch):
        page_table = self.req_to_token[forward_batch.req_pool_indices]
        md = {"page_table": page_table, "seq_lens": forward_batch.seq_lens}
        pool = self.token_to_kv_pool
        publish_index_mapping(self, getattr(pool, "full_to_swa_index_mapping", None))
        if (mapping := lookup_index_mapping(self)) is not None:
            md["swa_page_table"] = mapping[page_table].to(torch.int32)
        self.forward_metadata = md

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if save_kv_cache:
            self.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        md = self.forward_metadata
        table = md["page_table"]
        if layer.sliding_window_size > -1 and "swa_page_table" in md:
            table = md["swa_page_table"]
        k_cache, v_cache = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return torch.ops.sgl_kernel.paged_decode(q, k_cache, v_cache, table, md["seq_lens"])

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        raise NotImplementedError
