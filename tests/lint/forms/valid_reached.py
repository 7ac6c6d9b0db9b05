"""Correct look-alikes of other routes to the pool: accessors asked per forward, ``with`` over
a lock or a stream, helpers given the backend that read its pool when called."""
from __future__ import annotations

import threading

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.model_executor.forward_context import get_attn_backend, get_token_to_kv_pool


def _translate(backend, loc):
    pool = backend.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool.translate_loc_from_full_to_swa(loc)
    return loc


def _clip(backend, lens):
    return lens.clamp(max=backend.window) if backend.window > 0 else lens


class ReachedLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size
        self._lock = threading.Lock()
        with self._lock, torch.cuda.stream(torch.cuda.Stream()) as stream:
            self.stream = stream
            self.page = get_token_to_kv_pool().page_size
        self._now = lambda: get_attn_backend().token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if isinstance(get_token_to_kv_pool(), SWAKVPool):
            forward_batch.loc = _translate(self, forward_batch.out_cache_loc)
        forward_batch.seq_lens = _clip(self, forward_batch.seq_lens)
        if getattr(self._now(), "swa_kv_pool", None) is not None:
            forward_batch.swa = True
