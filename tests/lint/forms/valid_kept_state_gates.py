"""Look-alikes of decisions on kept pool state: each decides on something the swap keeps right."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def resolve_swa_kv_pool(runner):
    active = runner.token_to_kv_pool
    if isinstance(active, SWAKVPool):
        return active
    pool = runner.token_to_kv_pool_allocator.get_kvcache()
    return pool if isinstance(pool, SWAKVPool) else None


class _Builder:
    def __init__(self, chunk):
        self.chunk = chunk


class KeptStateLookalikesAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)
        self.builder = _Builder(model_runner.attention_chunk_size)
        self.page_size = model_runner.token_to_kv_pool.page_size

    def _live_table(self):
        pool = self.token_to_kv_pool
        return pool.full_to_swa_index_mapping if isinstance(pool, SWAKVPool) else None

    def init_forward_metadata(self, forward_batch):
        if self._swa_kv_pool is not None:  # the resolved pool: the fix
            forward_batch.swa = True
        self.view = getattr(self.token_to_kv_pool, "swa_kv_pool", None)  # re-read per forward
        if self.view is not None:
            forward_batch.view = self.view
        table = self._live_table()
        if table is not None:
            forward_batch.table = table
        if self.builder is not None and self.page_size > 1:
            forward_batch.chunk = self.builder.chunk
        idx = forward_batch.out_cache_loc
        if idx.numel() == 0:
            return
