"""The mixin and its heir, in one module."""
from .base import ResolvedBase


class GraphMixin:
    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens):
        if self.use_sliding_window_kv_pool:
            return self._swa_kv_pool.translate_loc_from_full_to_swa(seq_lens)
        return seq_lens


class GraphBackend(GraphMixin, ResolvedBase):
    pass
