"""A runner flag whose name says nothing of SWA is an SWA flag all the same when the code uses it
as one: SGLang 0.5.5 spelled the runner's hybrid-SWA flag ``is_hybrid`` and read the pool's SWA
mapping under it. Copied onto the backend it is the draft runner's config, blind to the pool
swap, like ``is_hybrid_swa``; a gate on it is a decision the pool should make."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HybridRunnerFlagBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid = model_runner.is_hybrid  # expect: KVP002
        if self.hybrid:  # expect: KVP003
            self.loc_map = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001

    def _init_local_attn_metadata(self, metadata):
        if self.hybrid:  # expect: KVP003
            return self.loc_map[metadata.page_table]
        return metadata.page_table


class ConfigFlagBackend(AttentionBackend):
    """Read through the model config, tested where it is read, gating a translator kept."""

    def __init__(self, model_runner, skip_prefill=False):
        super().__init__()
        self.windowed = model_runner.model_config.has_local_layers  # expect: KVP002
        if model_runner.model_config.has_local_layers:
            self.translate = model_runner.token_to_kv_pool.translate_loc_from_full_to_swa  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        page_table = forward_batch.page_table
        if self.windowed and layer.sliding_window_size > 0:  # expect: KVP003
            page_table = self.translate(page_table)
        return page_table


class LocalFlagBackend(AttentionBackend):
    """A local copy of the runner flag gates the pool's SWA read the same way."""

    def __init__(self, model_runner):
        super().__init__()
        hybrid = model_runner.is_hybrid
        self.use_local = hybrid  # expect: KVP002
        if hybrid:
            self.swa_pool = model_runner.token_to_kv_pool.swa_kv_pool  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = self.swa_pool if self.use_local else forward_batch.token_to_kv_pool  # expect: KVP003
        return pool


class SwapPointFlagBackend(AttentionBackend):
    """The flag gates a read of the construction-time pool through the swap point, in a setup
    method; its false branch is where the pool is said to have no SWA side."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.local_layers = model_runner.use_local_attention  # expect: KVP002
        self.init_cuda_graph_state(8, 64)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if not self.local_layers:  # expect: KVP003
            self.graph_layers = None
        else:
            self.graph_layers = self.token_to_kv_pool.layers_mapping  # expect: KVP001
