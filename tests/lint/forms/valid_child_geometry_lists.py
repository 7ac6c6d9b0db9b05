"""A wrapper collecting its children's geometry in a comprehension: a field read off each child
is the child's own (its window), whatever the children were handed."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class StepChild(AttentionBackend):
    def __init__(self, model_runner, step, swa_pool=None):
        self.step = step
        self.window_left = model_runner.sliding_window_size or -1
        self.swa_pool = swa_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.swa_pool


class StepParent(AttentionBackend):
    def __init__(self, model_runner, steps):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.children = [StepChild(model_runner, i) for i in range(steps)]
        self.windows = [child.window_left for child in self.children]
        self.widest = max(child.window_left for child in self.children)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.children[0].forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
