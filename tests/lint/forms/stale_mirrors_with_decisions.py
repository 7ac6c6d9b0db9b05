"""A mirror of a resolved pool ANDed with a kept pool decision is that decision: a type test of
the active pool stored beside it, or the runner's SWA flag copied, goes stale under the swap
however right the resolved half is."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class MirrorDecisionAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.active_is_swa = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None and self.active_is_swa  # expect: KVP002

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:  # expect: KVP003
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(loc)
        return q if loc is None else k
