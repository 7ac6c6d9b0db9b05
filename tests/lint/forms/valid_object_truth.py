"""Correct look-alikes of a kept object tested for truth: its ``__bool__``/``__len__`` reads
geometry only, the class defines no truth method (an object is always true), or the decision
tests whether the object is there (``is None``), which calls no method of it; an object built
again from the pool of each forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WindowShape:
    def __init__(self, window):
        self.window = window

    def __bool__(self):
        return self.window > 0


class LayerList:
    def __init__(self, layers):
        self.layers = list(layers)

    def __len__(self):
        return len(self.layers)


class PageBox:
    def __init__(self, page_size):
        self.page_size = page_size


class GeometryTruthAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.shape = WindowShape(model_runner.sliding_window_size)
        self.layer_list = LayerList(range(model_runner.model_config.num_hidden_layers))
        self.box = PageBox(model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.shape and self.layer_list:
            return q
        if self.box is None:
            return k
        return v if self.box else q


class KeptHandles:
    def __init__(self, pool):
        self.sub = getattr(pool, "swa_kv_pool", None)

    def __bool__(self):
        return self.sub is not None


class LiveHandlesAttnBackend(AttentionBackend):
    """The object is built again from the pool of each forward: its truth is that pool's."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        handles = KeptHandles(self.token_to_kv_pool)
        return q if handles else k
