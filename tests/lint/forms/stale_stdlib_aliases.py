"""Standard-library helpers imported under another name keep what they keep: a ``partial``
bound to the pool, an ``attrgetter`` applied to it (of one path or of several, a tuple), a
``weakref`` to it, a ``SimpleNamespace`` holding its sub-pool, whatever the local name the
module gives them."""
from __future__ import annotations

from functools import partial as bind
from operator import attrgetter as reader
from types import SimpleNamespace as Bag
from weakref import ref as weak

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class AliasedHelpersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        self._to_swa = bind(SWAKVPool.translate_loc_from_full_to_swa, pool)  # expect: KVP001
        self._swa_side = reader("swa_kv_pool")(pool)  # expect: KVP001
        self._pool_ref = weak(pool)  # expect: KVP001
        self._sides = Bag(swa=getattr(pool, "swa_kv_pool", None))  # expect: KVP001
        both = reader("swa_kv_pool", "full_to_swa_index_mapping")
        self._swa, self._map = both(pool)  # expect: KVP001
        self._full, self._rows = reader("full_kv_pool", "size")(pool)  # expect: KVP001
        self._scale = bind(max, 1.0)
        self._window = reader("sliding_window_size")(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self._to_swa(forward_batch.out_cache_loc), self._scale(q)
