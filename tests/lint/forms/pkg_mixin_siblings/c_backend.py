"""The backend inheriting both mixins: it also copies the sibling's verdict under a new name."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .a_gate_mixin import TableGateMixin
from .b_flag_mixin import PoolFlagMixin


class SiblingMixinAttnBackend(AttentionBackend, TableGateMixin, PoolFlagMixin):
    def __init__(self, model_runner):
        super().__init__()
        self._init_pool_flags(model_runner)
        self.paged_swa = self.window_mode  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = self._select_page_table(self.forward_metadata)
        return self._decode(q, table, self._select_translated(self.forward_metadata))
