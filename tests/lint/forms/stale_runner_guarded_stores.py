"""Stores made in a branch of a gate on a kept *runner* SWA flag (rel6 FA-1): the same as under
a type-test flag. ``self.is_hybrid_swa = model_runner.is_hybrid_swa`` is the draft runner's
config, blind to the FROZEN_KV MTP swap; what holds no pool data (a graph buffer, the model's
window size, an env value) is right once the gate is fixed, so the gate's finding counts it.
Pool data, a buffer sized by the pool and a literal the gate picks keep their own KVP001, and a
runner flag read in the test itself (no flag kept on the backend: no gate to fold into) picks
what is stored."""
from __future__ import annotations

import os

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class RunnerMatchAttnBackend(AttentionBackend):
    """A match on the copied flag; a dict entry and an env value in its case."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid = getattr(model_runner, "is_hybrid_swa", False)  # expect: KVP002
        self.graph_meta = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        match self.hybrid:  # expect: KVP003
            case True:
                self.graph_meta["window_table"] = torch.ones(max_bs, 1, 512, dtype=torch.bool)
                self.window_env = int(os.environ.get("WINDOW", "4096"))


class RunnerAliasAttnBackend(AttentionBackend):
    """The flag through a local alias; the window size and an arange index in nested blocks."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.is_hybrid_swa = model_runner.is_hybrid_swa  # expect: KVP002
        hybrid = self.is_hybrid_swa
        if hybrid:  # expect: KVP003
            self.window = model_runner.sliding_window_size
            if model_runner.device == "npu":
                self.window_index = torch.arange(4096, dtype=torch.int32)
        else:
            self.window = -1  # expect: KVP001


class RunnerTwinsAttnBackend(AttentionBackend):
    """Twins that keep their own finding: pool data, a buffer sized by the pool and a literal the
    gate picks under the copied flag; a buffer under the runner's flag read in the test."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.is_hybrid_swa = model_runner.is_hybrid_swa  # expect: KVP002
        if self.is_hybrid_swa:  # expect: KVP003
            self.rows = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
            self.loc = torch.zeros(self.token_to_kv_pool.size_swa)  # expect: KVP001
            self.layout = 2  # expect: KVP001
        if model_runner.is_hybrid_swa:
            self.swa_table = torch.zeros(8, 64, dtype=torch.int32)  # expect: KVP001
