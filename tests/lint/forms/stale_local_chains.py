"""Kept pool state unwrapped through locals: each local bound from a local that holds state kept
on ``self`` (or on a record ``self`` keeps, or on an object the module keeps) holds kept state
too, however many locals and partial chains the path takes, and a decision testing it is a
gate on that state."""
from __future__ import annotations

import types
from dataclasses import dataclass

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_CARRIED = types.SimpleNamespace(pool=None)


@dataclass
class _Kept:
    pool: object
    page_size: int


class LocalChainAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._draft_pool = model_runner.token_to_kv_pool  # expect: KVP001
        self.kept = _Kept(model_runner.token_to_kv_pool, model_runner.page_size)  # expect: KVP001
        _CARRIED.pool = model_runner.token_to_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        holder = self._draft_pool
        main = holder.main_pool
        if main is not None:  # expect: KVP003
            forward_batch.main = main
        same = holder
        window = same.swa_kv_pool
        forward_batch.window = window if window else None  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        inner = self._draft_pool.main_pool
        sub = inner.swa_kv_pool
        if sub is None:  # expect: KVP003
            return q
        record = self.kept
        kept = record.pool
        mapping = getattr(kept, "full_to_swa_index_mapping", None)
        if mapping is not None:  # expect: KVP003
            return k
        shared = _CARRIED.pool
        part = shared.swa_kv_pool
        return v if part is not None else q  # expect: KVP003
