"""A field of the per-forward metadata filled when missing: the metadata is built anew every
forward (here, or by the base's init_forward_metadata the heir calls first), so the fill lives
one forward, as a fill of a memo the forward empties does."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ForwardRecord:
    swa_out_cache_loc = None


class RecordBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_metadata = None

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = ForwardRecord()
        if self.forward_metadata.swa_out_cache_loc is None:
            self.forward_metadata.swa_out_cache_loc = (
                self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            )


class BatchPoolHeir(RecordBackend):
    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        pool = forward_batch.token_to_kv_pool
        if type(pool) is SWAKVPool and self.forward_metadata.swa_out_cache_loc is None:
            self.forward_metadata.swa_out_cache_loc = pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
