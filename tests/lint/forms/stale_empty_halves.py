"""The empty half of a pool decision made once (issue 13, fp6; rel5 D1's other side).

``if isinstance(pool, SWAKVPool): self.loc = torch.zeros(...) else: self.loc = None`` in
``__init__`` stores no pool data in either branch: what goes stale is the decision, and its one
finding is where a later decision reads it (``if self.loc is not None:`` per forward: KVP003).
Pool data under the decision keeps its KVP001, and its ``None`` twin in the other branch is that
same defect, not a second finding. A value that carries the decision itself (``zeros if
isinstance(...) else None``) is the decision, stored: KVP001 there.
"""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class EmptyTwinAttnBackend(AttentionBackend):
    """A buffer or None, never read in a decision: no stale state is used."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        if isinstance(pool, SWAKVPool):
            self.swa_out_cache_loc = torch.zeros(64, dtype=torch.int64)
        else:
            self.swa_out_cache_loc = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return forward_batch.out_cache_loc


class EmptyTwinGatedAttnBackend(AttentionBackend):
    """Whether the buffer is there decides per forward: that decision is the one finding."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        if isinstance(pool, SWAKVPool):
            self.swa_out_cache_loc = torch.zeros(64, dtype=torch.int64)
        else:
            self.swa_out_cache_loc = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.swa_out_cache_loc is not None:  # expect: KVP003
            return self.swa_out_cache_loc
        return forward_batch.out_cache_loc


class EmptyLaterAttnBackend(AttentionBackend):
    """Made first, emptied under a negated test."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.window_rows = torch.zeros(64)
        if not isinstance(pool, SWAKVPool):
            self.window_rows = None


class EmptyWithDataAttnBackend(AttentionBackend):
    """Pool data under the decision keeps its finding; the None twins add none."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        if isinstance(pool, SWAKVPool):
            self.swa_sub = pool.swa_kv_pool  # expect: KVP001
            self.swa_loc = torch.zeros(64)
        else:
            self.swa_sub = None
            self.swa_loc = None


class EmptyChosenAttnBackend(AttentionBackend):
    """The decision in the stored value itself."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.swa_loc = torch.zeros(64) if isinstance(pool, SWAKVPool) else None  # expect: KVP001
