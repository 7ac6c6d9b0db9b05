"""Correct look-alikes of ``hasattr(self, "x")``: an attribute set whatever the pool is, one set
under a geometry decision (a window length), and one a forward fills lazily."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PresenceLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        if (model_runner.sliding_window_size or 0) > 0:
            self.window_pages = model_runner.sliding_window_size // model_runner.page_size

    def init_forward_metadata(self, forward_batch):
        if not hasattr(self, "seen_batches"):
            self.seen_batches = 0
        self.seen_batches += 1
        if hasattr(self, "window_pages") and hasattr(self, "page_size"):
            forward_batch.window_pages = self.window_pages
