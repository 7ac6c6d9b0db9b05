"""Correct look-alikes of a probe in ``try``: an attribute every pool has, a probe made per
forward, a probe of the model config (not the pool)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ProbeLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        try:
            self.page_size = pool.page_size
            self.paged = True
        except AttributeError:
            self.paged = False
        try:
            self.block = self.token_to_kv_pool.page_size * 2
        except AttributeError:
            self.block = None
        try:
            self.window = model_runner.model_config.swa_window_size
        except AttributeError:
            self.window = None

    def init_forward_metadata(self, forward_batch):
        try:
            self.token_to_kv_pool.swa_layer_nums
            windowed = True
        except AttributeError:
            windowed = False
        forward_batch.windowed = windowed and self.paged
