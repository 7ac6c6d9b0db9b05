"""A verdict memo the module keeps, keyed by the pool of each call (its ``id()`` or the pool
itself, read off the batch or the backend per forward): a swapped-in pool is a new key, so
its own verdict is computed, and the decisions on the memo are about the pool in hand."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_IS_WINDOWED: dict = {}
_SUB_POOLS: dict = {}


class VerdictMemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        if id(pool) not in _IS_WINDOWED:
            _IS_WINDOWED[id(pool)] = isinstance(pool, SWAKVPool)
        if _IS_WINDOWED[id(pool)]:
            forward_batch.swa_loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        live = self.token_to_kv_pool
        sub = _SUB_POOLS.get(live)
        if sub is None and live not in _SUB_POOLS:
            sub = _SUB_POOLS[live] = getattr(live, "swa_kv_pool", None)
        return q if sub is None else sub.get_key_buffer(layer.layer_id)
