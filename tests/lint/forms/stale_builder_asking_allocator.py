"""A construction hook that also asks the allocator is no resolver of everything it keeps: the
kind it picks by a test of the active pool, the buffers it takes from it and the verdicts it
stores are kept as anywhere else."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Kind(enum.Enum):
    FULL = "full"
    HYBRID = "hybrid"


class BuilderBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._build(model_runner)

    def _build(self, model_runner):
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.kind = Kind.HYBRID  # expect: KVP002
        else:
            self.kind = Kind.FULL  # expect: KVP002
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        self.alloc_has_swa = hasattr(kvcache, "swa_kv_pool")  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.kind is Kind.HYBRID or self.alloc_has_swa:  # expect: KVP003
            return k
        return q


class SubPoolBuilderBackend(AttentionBackend):
    """The resolver's attribute name filled from the active pool's SWA half in a hook that
    also tests the allocator's pool: no resolver hands that back."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._setup(model_runner)

    def _setup(self, model_runner):
        pool = self.token_to_kv_pool
        self._swa_kv_pool = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.alloc_is_swa = isinstance(  # expect: KVP002
            model_runner.token_to_kv_pool_allocator.get_kvcache(), SWAKVPool
        )
