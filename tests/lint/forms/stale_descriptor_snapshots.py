"""A live descriptor (its ``__get__`` reads the active pool on each access, the attribute name
given to its constructor) is clean where it is read; its value stored outside per-forward code
is a snapshot of that moment's pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class _FromPool:
    def __init__(self, field, fallback=None):
        self.field = field
        self.fallback = fallback

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj.token_to_kv_pool, self.field, self.fallback)


class SnapshotDescriptorAttnBackend(AttentionBackend):
    rows = _FromPool("full_to_swa_index_mapping")
    swa_keys = _FromPool(field="swa_kv_pool")

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.rows_at_start = self.rows  # expect: KVP001
        self.keys_at_start = self.swa_keys  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_rows = self.rows  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        forward_batch.swa_loc = self.rows_at_start[loc] if self.rows_at_start is not None else loc  # expect: KVP003
