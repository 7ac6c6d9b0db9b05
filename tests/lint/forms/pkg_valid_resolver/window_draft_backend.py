"""Subclasses in another module gating on the live property and on the pool object."""
from __future__ import annotations

from .window_base_backend import WindowBaseAttnBackend


class WindowDraftAttnBackend(WindowBaseAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            return self._swa_decode(q, loc)
        return self._decode(q, forward_batch.out_cache_loc)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.cuda_graph_page_table = self._new_table(max_bs, self.max_pages)
        if self._swa_kv_pool is not None:
            self.cuda_graph_swa_page_table = self._new_table(max_bs, self.max_pages)
        assert not self.active_is_window_pool or self._swa_kv_pool is not None
