"""Children handed a sub-pool picked once by a pool test: the list keeping them keeps it; their
geometry gathered from that list is theirs (a window, not the pool they were handed)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PickChild(AttentionBackend):
    def __init__(self, model_runner, step, swa_pool=None):
        self.step = step
        self.window_left = model_runner.sliding_window_size or -1
        self.swa_pool = swa_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.swa_pool


class PickParent(AttentionBackend):
    def __init__(self, model_runner, steps):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        shared = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        self.children = [PickChild(model_runner, i, swa_pool=shared) for i in range(steps)]  # expect: KVP001
        self.windows = [child.window_left for child in self.children]
        self.widest = max(child.window_left for child in self.children)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.children[0].forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
