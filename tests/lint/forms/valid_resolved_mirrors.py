"""Correct look-alikes: a boolean kept beside a pool resolved through the allocator (#27491).

The FROZEN_KV swap installs the allocator's pool, the very object the resolver returned, so a
flag that only tests that pool says the same for the target, an EAGLE draft and a FROZEN_KV
draft. Such a mirror is KVP004's (opt-in), never a stale gate.
"""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def find_window_pool(model_runner) -> Optional[SWAKVPool]:
    active = model_runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


class TruthMirrorAttnBackend(AttentionBackend):
    """A module resolver, the flag spelled with bool(), gated through a local and a ternary."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_kv_pool = find_window_pool(model_runner)
        self.use_sliding_window_kv_pool = bool(self.window_kv_pool)

    def init_forward_metadata(self, forward_batch):
        windowed = self.use_sliding_window_kv_pool
        loc = forward_batch.out_cache_loc
        if windowed and loc is not None:
            forward_batch.swa_loc = self.window_kv_pool.translate_loc_from_full_to_swa(loc)
        forward_batch.kind = "swa" if self.use_sliding_window_kv_pool else "full"


class RenamedMirrorAttnBackend(AttentionBackend):
    """Another name for the resolved pool, the flag also asks it a layer count (aiter's form)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_pool = self._lookup_window_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self.window_pool is not None and self.window_pool.swa_layer_nums > 0
        )

    @staticmethod
    def _lookup_window_pool(model_runner) -> Optional[SWAKVPool]:
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        assert self.use_sliding_window_kv_pool or layer.sliding_window_size <= 0
        while not self.use_sliding_window_kv_pool:
            return self._decode(q, forward_batch)
        return self._swa_decode(q, forward_batch)


class AnnotatedMirrorAttnBackend(AttentionBackend):
    """An annotated resolver store, the flag negated twice, read through getattr."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool: Optional[SWAKVPool] = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = not (self._swa_kv_pool is None)

    def _resolve_swa_kv_pool(self, model_runner) -> Optional[SWAKVPool]:
        allocator = model_runner.token_to_kv_pool_allocator
        kvcache = allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if getattr(self, "use_sliding_window_kv_pool", False):
            self.graph_pages = [0] * max_bs
