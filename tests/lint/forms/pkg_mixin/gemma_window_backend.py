"""The backend using the mixin: the flag is set here, the gate lives in the mixin's module."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .swa_state_mixin import SwaStateMixin


class GemmaWindowAttnBackend(SwaStateMixin, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_mode = type(model_runner.token_to_kv_pool) is SWAKVPool  # expect: KVP002
        self._init_swa_state(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = self._select_page_table(self.forward_metadata)
        return self._decode(q, table)
