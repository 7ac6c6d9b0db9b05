"""Correct look-alikes: context managers whose ``as`` target holds the pool's geometry only
(a generator yielding head counts, an ``__enter__`` returning a size), entered once; and pool
state entered per forward."""
from __future__ import annotations

import contextlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ShapeProbe:
    def __init__(self, pool):
        self.pool = pool

    def __enter__(self):
        return self.pool.head_num

    def __exit__(self, *exc):
        return None


class MappingCheckout:
    def __init__(self, pool):
        self.pool = pool

    def __enter__(self):
        return self.pool.full_to_swa_index_mapping

    def __exit__(self, *exc):
        return None


@contextlib.contextmanager
def layout_of(pool):
    yield pool.head_num, pool.head_dim, pool.layer_num


class ShapedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        with layout_of(model_runner.token_to_kv_pool) as (heads, head_dim, layers):
            self.heads, self.head_dim, self.layers = heads, head_dim, layers
        with contextlib.ExitStack() as stack:
            self.probe_heads = stack.enter_context(ShapeProbe(self.token_to_kv_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        with MappingCheckout(self.token_to_kv_pool) as mapping:
            if mapping is not None and layer.sliding_window_size > 0:
                return mapping[forward_batch.out_cache_loc]
        return self.heads * self.head_dim * self.layers
