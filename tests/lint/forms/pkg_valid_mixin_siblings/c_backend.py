"""The backend inheriting both mixins; the pool is swapped through its own attribute."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .a_gate_mixin import LiveGateMixin
from .b_view_mixin import LivePoolViewMixin


class LiveSiblingAttnBackend(AttentionBackend, LiveGateMixin, LivePoolViewMixin):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._decode(q, self._select_page_table(self.forward_metadata))
