"""Memos filled under a test joined with other conditions (``and`` / ``or``): the block still
fills the memo, keyed by something the pool swap does not change (the backend, a layer, a
name), so the first pool's state is what later forwards read."""
from __future__ import annotations

from types import SimpleNamespace

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_SUB_POOLS = {}
_TRANSLATORS = {}
_REBUILD = False


class JoinedMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner, name="draft"):
        super().__init__()
        self.name = name
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or -1
        self._rows = {}
        self._mapping = None

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if self._mapping is None and forward_batch.forward_mode.is_decode():
            self._mapping = pool.full_to_swa_index_mapping  # expect: KVP001
        if _TRANSLATORS.get(self.name) is None and self.window > 0:
            _TRANSLATORS[self.name] = pool.translate_loc_from_full_to_swa  # expect: KVP001
        owner = type(self).__name__
        if _REBUILD or owner not in _SUB_POOLS:
            _SUB_POOLS[owner] = getattr(pool, "swa_kv_pool", None)  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        if lid not in self._rows and layer.sliding_window_size > 0:
            self._rows[lid] = self.token_to_kv_pool.get_key_buffer(lid)  # expect: KVP001
        return torch.empty_like(q), self._rows.get(lid)


class ReadyGatedSlotAttnBackend(AttentionBackend):
    """A slot checked against the pool by identity, refilled only when a second condition also
    holds: an extend after the swap finds the slot still holding the old pool's mapping."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._mapping = None
        self._mapped_for = None

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if self._mapped_for is not pool and forward_batch.forward_mode.is_decode():
            self._mapped_for = pool  # expect: KVP001
            self._mapping = pool.full_to_swa_index_mapping  # expect: KVP001
        forward_batch.swa_loc = self._mapping[forward_batch.out_cache_loc]


class PlanKeyedByLayerAttnBackend(AttentionBackend):
    """A plan whose own field holds what it was built for, checked on each use, but the key is
    a layer count, not the pool: a swapped-in pool of the same shape keeps the old plan."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._plan = None

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        if self._plan is None or self._plan.layers != pool.layer_num:
            self._plan = SimpleNamespace(layers=pool.layer_num,  # expect: KVP001
                                         window=getattr(pool, "swa_kv_pool", None))
        forward_batch.window = self._plan.window


class ClassKeyedTranslateAttnBackend(AttentionBackend):
    """A memo keyed by the pool's class (filled on a KeyError) keeping the first pool's bound
    translate: a swapped-in pool of the same class is handed the old pool's method."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._by_class = {}

    def _translate_for(self, pool):
        cls = type(pool)
        try:
            return self._by_class[cls]
        except KeyError:
            fn = pool.translate_loc_from_full_to_swa if hasattr(cls, "swa_kv_pool") else None
            self._by_class[cls] = fn  # expect: KVP001
            return fn

    def init_forward_metadata(self, forward_batch):
        translate = self._translate_for(self.token_to_kv_pool)
        if translate is not None:  # expect: KVP003
            forward_batch.swa_loc = translate(forward_batch.out_cache_loc)
