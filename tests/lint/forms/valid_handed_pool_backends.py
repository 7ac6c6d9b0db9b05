"""Look-alike of stale_handed_pool_backends: the inner backends are built from the runner, from
geometry, or from a pool they read geometry off only, or built per forward from the batch's
pool; none keeps a pool's state past the swap."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class GeometryKernelBackend(AttentionBackend):
    def __init__(self, cache, window, runner=None):
        super().__init__()
        self.page_size = cache.page_size
        self.head_dim = cache.head_dim
        self.window = window
        self.runner = runner

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        return torch.ops.demo.window_decode(q, pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, self.window)


class GeometryHandingAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size or -1
        self.local = GeometryKernelBackend(model_runner.token_to_kv_pool, window)
        self.runner_built = GeometryKernelBackend(model_runner.model_config, window, runner=model_runner)
        self.step = None

    def init_forward_metadata(self, forward_batch):
        self.step = GeometryKernelBackend(forward_batch.token_to_kv_pool, -1)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        inner = self.local if layer.sliding_window_size > 0 else self.step
        return inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
