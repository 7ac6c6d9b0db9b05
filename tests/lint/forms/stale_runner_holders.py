"""The active pool reached through an attribute of ours that holds the runner under another
name (``self.kv_holder = model_runner``): its ``token_to_kv_pool`` is the one a FROZEN_KV swap
rebinds, and what is read off it outside per-forward code is kept state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class HeldRunnerAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.owner = model_runner
        self.rows = self.owner.token_to_kv_pool.main_pool.swa_index_mapping  # expect: KVP001
        self.windowed = isinstance(self.owner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        forward_batch.swa_loc = self.rows[loc] if self.rows is not None else loc  # expect: KVP003
        if self.windowed:  # expect: KVP003
            forward_batch.window = 1


class LateHolderAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.engine = model_runner
        self.keys = None

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.keys = self.engine.token_to_kv_pool.get_key_buffer(0)  # expect: KVP001


class ChosenHolderAttnBackend(AttentionBackend):
    """The holder is one operand of ``or``, or one side of a ternary: either may be the runner."""

    def __init__(self, model_runner, owner=None, draft=None):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.holder = owner or model_runner
        self.source = draft.model_runner if draft is not None else model_runner
        self.kv = self.holder.token_to_kv_pool  # expect: KVP001
        self.swa = isinstance(self.source.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.swa:  # expect: KVP003
            return self.kv.get_key_buffer(layer.layer_id)
        return q
