"""One decision spread over lines is one finding: a flag and kept pool state tested in one
``and``/``or`` (``not self.windowed or self._table is not None``, split over two lines) is
reported once, at the flag; the same kept state tested in a decision of its own is its own
finding."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SpannedDecisionAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.windowed = isinstance(pool, SWAKVPool)  # expect: KVP002
        self._table = pool.full_to_swa_index_mapping if self.windowed else None  # expect: KVP001

    def graph_ready(self) -> bool:
        return (
            not self.windowed  # expect: KVP003
            or self._table is not None
        )

    def init_forward_metadata(self, forward_batch):
        if (self._table is not None  # expect: KVP003
                and forward_batch.out_cache_loc is not None):
            forward_batch.loc = self._table[forward_batch.out_cache_loc]
        ready = (self.windowed  # expect: KVP003
                 and self._table is not None)
        forward_batch.ready = ready
