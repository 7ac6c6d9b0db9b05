"""Its twin: the record is built once, in __init__, and a forward fills its field only while it
is missing: the first forward's translation is kept for every later one."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class OnceRecord:
    swa_out_cache_loc = None


class OnceRecordBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_metadata = OnceRecord()

    def init_forward_metadata(self, forward_batch):
        if self.forward_metadata.swa_out_cache_loc is None:
            self.forward_metadata.swa_out_cache_loc = (  # expect: KVP001
                self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            )
