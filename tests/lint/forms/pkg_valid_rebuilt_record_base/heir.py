"""The heir: the base builds the record, the heir fills the SWA locations when missing."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import RecordBase


class FillingHeir(RecordBase):
    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        pool = forward_batch.token_to_kv_pool
        if type(pool) is SWAKVPool and self.forward_metadata.swa_out_cache_loc is None:
            self.forward_metadata.swa_out_cache_loc = pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
