"""Twins of the identity anchors: a kept pool used as a pool, or tested for None (not against
the live pool), is stale pool state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KeptAndUsedBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._built_with = model_runner.token_to_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.token_to_kv_pool is self._built_with:
            return
        forward_batch.mapping = self._built_with.full_to_swa_index_mapping


class KeptNoneTestBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._kept = model_runner.token_to_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self._kept is None:  # expect: KVP003
            return
        forward_batch.kept = True
