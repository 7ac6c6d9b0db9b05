"""A dict of launch options built once with constant keys: each key holds what was stored
under it. The flag entry and the pool-data entry are stale (and every decision on them), the
geometry entries beside them are not: a test of ``opts["page"]`` or ``opts.get("rows")``
decides nothing about the pool, directly or through a local."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class KeyedOptionsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.opts = {"page": model_runner.page_size, "rows": 16, "window": -1}
        self.opts["windowed"] = isinstance(pool, SWAKVPool)  # expect: KVP002
        self.opts["window"] = model_runner.sliding_window_size or -1
        self.opts["map"] = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        page = self.opts["page"]
        loc = forward_batch.out_cache_loc
        if page > 1 and self.opts.get("rows", 0) > 8 and self.opts["window"] > 0:
            loc = loc // page
        if self.opts.get("windowed"):  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.opts["map"] is not None:  # expect: KVP003
            loc = self.opts["map"][loc]
        forward_batch.read_loc = loc
