"""Heirs of another module: one gates on the inherited mirror, one resolves again."""
from __future__ import annotations

from .mirror_base_backend import MirrorBaseAttnBackend


class MirrorHeirAttnBackend(MirrorBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            return self._swa_decode(q, forward_batch)
        return self._decode(q, forward_batch)


class ReResolvingHeirAttnBackend(MirrorBaseAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        assert not self.use_sliding_window_kv_pool or self._swa_kv_pool is not None
