"""Correct look-alikes of a record kept as ``given or Layout.of(runner)``: its fields are
geometry (page size, window length), read from the runner's configuration, not from its pool."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass(frozen=True)
class PageLayout:
    page: int
    window: int

    @classmethod
    def of(cls, runner) -> "PageLayout":
        return cls(page=runner.page_size, window=runner.sliding_window_size or 0)


class FallbackLayoutAttnBackend(AttentionBackend):
    def __init__(self, model_runner, layout: Optional[PageLayout] = None):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layout = layout or PageLayout.of(model_runner)
        self.window = self.layout.window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.layout.page > 1 and self.window > 0:
            return q
        return k
