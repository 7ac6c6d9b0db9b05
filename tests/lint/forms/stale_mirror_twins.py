"""Stale twins of valid_resolved_mirrors.py: the flag looks like a mirror of a resolved pool,
but what it tests was not resolved through the allocator, is rebound behind its back, or the
flag is decided by a type test or a runner flag."""
from __future__ import annotations

from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class PickedMirrorAttnBackend(AttentionBackend):
    """The "resolver" only looks at the active pool: the draft's, never the swapped-in one."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._pick_window_pool(model_runner)  # expect: KVP001
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None  # expect: KVP002

    @staticmethod
    def _pick_window_pool(model_runner) -> Optional[SWAKVPool]:
        active = model_runner.token_to_kv_pool
        return active if isinstance(active, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        if self.use_sliding_window_kv_pool:  # expect: KVP003
            forward_batch.swa = True


class TypeFlagBesideResolverAttnBackend(AttentionBackend):
    """The pool is resolved, but the flag is a type test of the draft's pool (0.5.13)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:  # expect: KVP003
            return self._swa_decode(q, forward_batch)
        return self._decode(q, forward_batch)


class RebindableMirrorAttnBackend(AttentionBackend):
    """Resolved, but a helper rebinds the pool alone: the flag keeps the old answer."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None  # expect: KVP004

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kvcache if isinstance(kvcache, SWAKVPool) else None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:  # expect: KVP003
            return self._swa_extend(q, forward_batch)
        return self._extend(q, forward_batch)


def adopt_window_pool(backend: RebindableMirrorAttnBackend, pool) -> None:
    backend._swa_kv_pool = pool
