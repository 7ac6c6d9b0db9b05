"""What the branches of a type test of the pool pick or have made, outside per-forward code: a
child backend, a planner, a table of children per layer, a graph buffer made only for an SWA
pool. Which one is there (or whether it is) is the test's verdict, kept past the swap whatever
the value; a decision reading whether it is there is a finding of its own (KVP003)."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowPlanner:
    def __init__(self, width):
        self.width = width


class DensePlanner(WindowPlanner):
    pass


class PickedObjectsAttnBackend(AttentionBackend):
    def __init__(self, model_runner, dense_child, window_child):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.dense_child, self.window_child = dense_child, window_child
        if isinstance(pool, SWAKVPool):
            self.child = self.window_child  # expect: KVP001
            self.planner = WindowPlanner(model_runner.sliding_window_size)  # expect: KVP001
        else:
            self.child = self.dense_child  # expect: KVP001
            self.planner = DensePlanner(0)  # expect: KVP001
        self.routes = {}
        for layer_id in range(model_runner.model_config.num_hidden_layers):
            if isinstance(pool, SWAKVPool) and layer_id % 2:
                self.routes[layer_id] = self.window_child  # expect: KVP001
            else:
                self.routes[layer_id] = self.dense_child  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            self.graph_swa_loc = torch.zeros(max_num_tokens, dtype=torch.int64)  # expect: KVP001
        else:
            self.graph_swa_loc = None

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens):
        if self.graph_swa_loc is not None:  # expect: KVP003
            self.graph_swa_loc.zero_()

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self.routes[layer.layer_id].forward_decode(q, k, v, layer, forward_batch)
