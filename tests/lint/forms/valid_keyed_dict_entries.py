"""Look-alikes of ``stale_keyed_dict_entries``: geometry entries of a kept dict tested per
forward, beside an entry recomputed from ``self.token_to_kv_pool`` on every forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveKeyedOptionsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.opts = {"page": model_runner.page_size, "rows": 16}
        self.opts["window"] = model_runner.sliding_window_size or -1

    def init_forward_metadata(self, forward_batch):
        self.opts["windowed"] = isinstance(self.token_to_kv_pool, SWAKVPool)
        page = self.opts["page"]
        loc = forward_batch.out_cache_loc
        if page > 1 and self.opts.get("rows", 0) > 8 and self.opts["window"] > 0:
            loc = loc // page
        if self.opts["windowed"]:
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        forward_batch.read_loc = loc
