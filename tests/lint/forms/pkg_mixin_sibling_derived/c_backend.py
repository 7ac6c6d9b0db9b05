"""Keeps the sub-pool (stale) and a geometry number; gates on the sibling's flag itself too."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .a_gate_mixin import WindowGateMixin
from .b_flag_mixin import SubPoolFlagMixin


class SubPoolMixinAttnBackend(AttentionBackend, WindowGateMixin, SubPoolFlagMixin):
    def __init__(self, model_runner):
        super().__init__()
        self.swa_pool = getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)  # expect: KVP001
        self.window_size = model_runner.sliding_window_size
        self._init_window_flags()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_mode:  # expect: KVP003
            return q
        return self._select_page_table(self.forward_metadata)
