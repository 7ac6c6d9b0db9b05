"""Backends keeping what the classifiers of ``kinds`` picked."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .kinds import Addressing, PageMode


class ClassifiedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.addressing = Addressing.of_pool(model_runner.token_to_kv_pool)  # expect: KVP002
        self.page_mode = PageMode.probe(self.token_to_kv_pool)  # expect: KVP002
        self.config_mode = PageMode.of_config(model_runner.model_config)

    def _windowed(self) -> bool:
        return self.addressing is Addressing.WINDOWED

    def init_forward_metadata(self, forward_batch):
        if self.page_mode == PageMode.TRANSLATED:  # expect: KVP003
            forward_batch.translate = True
        if self.config_mode == PageMode.TRANSLATED:
            forward_batch.windowed_model = True


class LiveClassifiedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.config_mode = PageMode.of_config(model_runner.model_config)

    @property
    def addressing(self) -> Addressing:
        return Addressing.of_pool(self.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        if self.addressing is Addressing.WINDOWED:
            forward_batch.translate = True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if Addressing.of_layer(layer) is Addressing.WINDOWED:
            forward_batch.windowed = True
        return q
