"""A loop over state kept in ``__init__`` (``for sub in self.subs.values()``, ``for name, table in
self.tables.items()``) hands the body the kept sub-pools and mappings: testing the loop variable
is a decision on them. The key of ``.items()`` is a name, not state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KeptLoopAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.tables = {"swa": getattr(pool, "full_to_swa_index_mapping", None)}  # expect: KVP001
        self.subs = [getattr(pool, "swa_kv_pool", None), getattr(pool, "full_kv_pool", None)]  # expect: KVP001
        self.page_sizes = {"swa": model_runner.page_size, "full": model_runner.page_size}

    def init_forward_metadata(self, forward_batch):
        for name, table in self.tables.items():
            if name == "full":
                continue
            if table is None:  # expect: KVP003
                return forward_batch.out_cache_loc
        for name, size in self.page_sizes.items():
            if size > 1 and name == "swa":
                break
        return None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for sub in self.subs:
            if sub is not None:  # expect: KVP003
                return q, sub
        return q, None


class LiveLoopAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.names = ("swa_kv_pool", "full_kv_pool")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        subs = [getattr(self.token_to_kv_pool, name, None) for name in self.names]
        for sub in subs:
            if sub is not None:
                return q, sub
        for name in self.names:
            if name.startswith("swa"):
                return q, None
        return q, None
