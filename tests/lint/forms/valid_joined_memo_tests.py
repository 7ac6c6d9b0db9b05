"""Look-alike of stale_joined_memo_tests: the joined tests check the memo against the pool of
this very call (the batch's, or the backend's read now), so each pool refills it."""
from __future__ import annotations

from types import SimpleNamespace

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolCheckedMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or -1
        self._mapping = None
        self._mapped_for = None
        self._by_pool = {}

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if self._mapping is None or self._mapped_for is not pool:
            self._mapped_for = pool
            self._mapping = getattr(pool, "full_to_swa_index_mapping", None)
        forward_batch.swa_loc = None if self._mapping is None else self._mapping[forward_batch.out_cache_loc]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if layer.sliding_window_size > 0 and id(pool) not in self._by_pool:
            self._by_pool[id(pool)] = getattr(pool, "swa_kv_pool", None)
        sub = self._by_pool.get(id(pool))
        return torch.empty_like(q), pool if sub is None else sub


class IdentitySlotAttnBackend(AttentionBackend):
    """A slot checked against the pool by identity whatever else holds: a new pool refills it."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._sub = None
        self._sub_for = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if self._sub_for is pool and self._sub is not None:
            sub = self._sub
        else:
            self._sub_for = pool
            self._sub = sub = getattr(pool, "swa_kv_pool", None)
        return torch.empty_like(q), pool if sub is None else sub


class PlanKeyedByItsSourceAttnBackend(AttentionBackend):
    """A plan whose own field holds the pool it was built from, checked by identity on every
    use (also the first, in ``__init__``): a swapped-in pool rebuilds it whole."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._plan = None
        self.workspace = torch.empty(8, self.plan.head_dim)

    @property
    def plan(self):
        pool = self.token_to_kv_pool
        if self._plan is None or self._plan.source is not pool:
            self._plan = SimpleNamespace(source=pool, head_dim=pool.head_dim,
                                         window=getattr(pool, "swa_kv_pool", None))
        return self._plan

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = self.plan.window
        return torch.empty_like(q), self.token_to_kv_pool if window is None else window


class ClassKeyedUnboundAttnBackend(AttentionBackend):
    """A memo keyed by the pool's class keeping the class's own (unbound) translate, applied to
    the pool of each call: what it keeps holds for every pool of that class."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._by_class = {}

    def _translate_for(self, pool):
        cls = type(pool)
        try:
            return self._by_class[cls]
        except KeyError:
            fn = cls.translate_loc_from_full_to_swa if hasattr(cls, "swa_kv_pool") else None
            self._by_class[cls] = fn
            return fn

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        translate = self._translate_for(pool)
        if translate is not None:
            forward_batch.swa_loc = translate(pool, forward_batch.out_cache_loc)
