"""Data read off a pool's data: a layer's state object's buffers (``get_*_states(i)``), a view of
a buffer or a mapping. Kept, it is the pool of that moment as the buffer itself would be; a
helper holding the backend that memoises a table of them per layer keeps them too."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass
class _LayerState:
    head_dim: int
    scores: torch.Tensor


class LayerStateTable:
    def __init__(self, backend):
        self.backend = backend
        self._table: Optional[List[_LayerState]] = None

    def _layers(self):
        if self._table is None:
            table = []
            pool = self.backend.token_to_kv_pool
            for layer_id in self.backend.compressed_layer_ids:
                states = pool.get_attention_compress_states(layer_id)
                table.append(_LayerState(head_dim=64, scores=states.kv_score_buffer.kv_score))
            self._table = table
        return iter(self._table)

    def commit(self, seq_lens):
        for layer in self._layers():
            layer.scores[: seq_lens.numel()].zero_()


class LayerStateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.compressed_layer_ids = [0, 2]
        self.first_scores = pool.get_indexer_compress_states(0).kv_score_buffer.kv_score  # expect: KVP001
        self.key_view = pool.get_key_buffer(0).data  # expect: KVP001
        self.table = LayerStateTable(self)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.table.commit(forward_batch.seq_lens)
        return torch.empty_like(q), self.first_scores, self.key_view
