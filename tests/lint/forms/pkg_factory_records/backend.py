"""The backend: a record is judged by what the factory of another module puts in it."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import layouts
from .layouts import SWALayout, Translation


class FactoryPackageAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layout = SWALayout.from_pool(model_runner.token_to_kv_pool)  # expect: KVP001
        self.translation = layouts.Translation.of(self.token_to_kv_pool, 128)  # expect: KVP001
        self.configured = layouts.SWALayout.from_config(model_runner)
        self.geometry = Translation.of(None, model_runner.sliding_window_size)

    def init_forward_metadata(self, forward_batch):
        if self.layout.is_swa:  # expect: KVP003
            forward_batch.swa = True
        if self.translation.mapping is not None:  # expect: KVP003
            forward_batch.mapping = True
        live = SWALayout.from_pool(self.token_to_kv_pool)
        if live.is_swa and self.configured.is_swa and self.geometry.window > 0:
            forward_batch.window = self.translation.window
