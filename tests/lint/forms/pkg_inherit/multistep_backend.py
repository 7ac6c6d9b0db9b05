"""A grandchild via a module import: ``module.Class`` as the base."""
from __future__ import annotations

from . import draft_window_backend


class MultiStepWindowAttnBackend(draft_window_backend.DraftWindowAttnBackend):
    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        assert not self.has_window_pool or self.page_size == 1  # expect: KVP003
        self.cuda_graph_page_table = self._new_table(max_bs)
