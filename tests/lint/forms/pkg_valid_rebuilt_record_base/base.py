"""The base: a fresh metadata record every forward, bound through a local."""
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ForwardRecord:
    swa_out_cache_loc = None


class RecordBase(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.forward_metadata = None

    def init_forward_metadata(self, forward_batch):
        record = ForwardRecord()
        record.page_table = forward_batch.req_pool_indices
        self.forward_metadata = record
