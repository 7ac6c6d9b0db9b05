"""A slice bound cuts, it does not choose: geometry kept beside a flag (in the same dict, in a
record built with it) and used as a slice start, stop or step is no decision, so no gate;
indexing by the flag itself, or a bound picked by it, still is one."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SlicedTableAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.launch = {"page": model_runner.page_size, "rows": 8}
        self.launch["windowed"] = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.tables = (torch.zeros(8), torch.ones(8))

    def init_forward_metadata(self, forward_batch):
        step = self.launch["page"]
        rows = self.launch["rows"]
        table = forward_batch.req_to_token_pool.req_to_token
        pages = table[forward_batch.req_pool_indices, ::step]
        head = table[:rows, step - 1 :: step]
        picked = self.tables[self.launch["windowed"]]  # expect: KVP003
        tail = table[: rows if self.launch.get("windowed") else 1]  # expect: KVP003
        forward_batch.pages = (pages // step, head, picked, tail)
