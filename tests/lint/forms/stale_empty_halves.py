"""The empty half of a pool decision made once (issue 13, fp6; rel5 D1's other side).

``if isinstance(pool, SWAKVPool): self.loc = torch.zeros(...) else: self.loc = None`` in
``__init__`` makes the buffer under a decision on the pool taken once, as ``zeros if
isinstance(...) else None`` does: KVP001 at the store that makes it (control dependence,
whatever the value), and a later decision reading whether it is there (``if self.loc is not
None:`` per forward) is KVP003. Its ``None`` twin in the other branch stores nothing and adds
no finding; pool data under the decision keeps its KVP001.
"""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class EmptyTwinAttnBackend(AttentionBackend):
    """A buffer or None, never read in a decision: the store making it is the one finding."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        if isinstance(pool, SWAKVPool):
            self.swa_out_cache_loc = torch.zeros(64, dtype=torch.int64)  # expect: KVP001
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
            self.swa_out_cache_loc = torch.zeros(64, dtype=torch.int64)  # expect: KVP001
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
            self.swa_loc = torch.zeros(64)  # expect: KVP001
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
