"""Correct look-alikes of ``stale_generator_frames``: generators kept on the backend that read
the live pool at every resume, bind only geometry before their first ``yield``, or are
consumed at once (their frame dies with the call)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def live_tables(backend):
    page_size = backend.token_to_kv_pool.page_size
    tables = None
    while True:
        forward_batch = yield tables
        pool = backend.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            tables = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc) // page_size


class LivePipelineAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._pipeline = self._metadata_pipeline()
        next(self._pipeline)
        self._tables = live_tables(self)
        next(self._tables)
        self.window_layers = list(self._window_layers())

    def _metadata_pipeline(self):
        dtype = self.token_to_kv_pool.dtype
        tables = None
        while True:
            forward_batch = yield tables
            pool = self.token_to_kv_pool
            swa_pool = pool if isinstance(pool, SWAKVPool) else None
            tables = swa_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc) if (
                swa_pool is not None) else forward_batch.out_cache_loc.to(dtype)

    def _window_layers(self):
        pool = self.token_to_kv_pool
        for layer_id in range(self.num_layers):
            if pool is not None:
                yield layer_id

    def init_forward_metadata(self, forward_batch):
        self.tables = self._pipeline.send(forward_batch)
        self.live = self._tables.send(forward_batch)
