"""Look-alikes of ``stale_slice_bounds``: slice bounds from geometry and from a type test of
the live pool made on every forward; nothing kept decides."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveSlicedTableAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.launch = {"page": model_runner.page_size, "rows": 8}

    def init_forward_metadata(self, forward_batch):
        windowed = isinstance(self.token_to_kv_pool, SWAKVPool)
        step = self.launch["page"] * (2 if windowed else 1)
        table = forward_batch.req_to_token_pool.req_to_token
        pages = table[forward_batch.req_pool_indices, :: self.launch["page"]]
        head = table[: self.launch["rows"], step - 1 :: step]
        forward_batch.pages = (pages, head, table[:: 2 if windowed else 1])
