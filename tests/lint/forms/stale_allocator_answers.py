"""The allocator's pool as a helper's one answer: no look at the active pool first and no
draft-role check, so it is no resolver; what it hands back is kept pool state like any other
(a draft runner's allocator pool is the target's). A property testing an attribute kept so is
a stale flag too."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def allocator_window_pool(runner):
    cache = runner.token_to_kv_pool_allocator.get_kvcache()
    return cache if isinstance(cache, SWAKVPool) else None


def shared_cache(runner):
    return runner.token_to_kv_pool_allocator.get_kvcache()


class AllocatorOnlyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = allocator_window_pool(model_runner)  # expect: KVP001
        self.kv_cache = shared_cache(model_runner)  # expect: KVP001

    @property
    def windowed(self) -> bool:
        return self._swa_kv_pool is not None

    def init_forward_metadata(self, forward_batch):
        if self.windowed:  # expect: KVP003
            forward_batch.loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = getattr(self.kv_cache, "full_to_swa_index_mapping", None)
        if table is not None:  # expect: KVP003
            return table[forward_batch.out_cache_loc]
        return None
