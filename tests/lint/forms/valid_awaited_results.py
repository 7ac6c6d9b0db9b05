"""Correct look-alikes of the awaited results: an event loop or an executor running a probe of
geometry, or a probe of the pool run again on every forward, keeps nothing the swap changes."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


async def _head_shape(config):
    return config.num_attention_heads, config.head_dim


def _page_count(size, page_size):
    return (size + page_size - 1) // page_size


async def _probe_sub_pool(pool):
    return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


class GeometryProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.num_heads, self.head_dim = asyncio.run(_head_shape(model_runner.model_config))
        with ThreadPoolExecutor(max_workers=1) as workers:
            self.pages = workers.submit(_page_count, 4096, model_runner.page_size).result()
        self.runner = asyncio.new_event_loop()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sub = self.runner.run_until_complete(_probe_sub_pool(self.token_to_kv_pool))
        if sub is not None and layer.sliding_window_size > 0:
            return sub.get_key_buffer(layer.layer_id)
        if self.pages > 0:
            return torch.empty_like(q)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
