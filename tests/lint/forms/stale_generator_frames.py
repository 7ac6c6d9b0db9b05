"""A generator kept on the backend keeps its frame: what its code before the first ``yield``
binds (once, at the first resume) stays for every later resume. A method generator primed in
``__init__``, a module generator handed the backend, a method generator handed the pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_tables(backend):
    pool = backend.token_to_kv_pool
    window = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
    tables = None
    while True:
        forward_batch = yield tables
        if window is not None:
            tables = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)


class PrimedPipelineAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._pipeline = self._metadata_pipeline()  # expect: KVP001
        next(self._pipeline)

    def _metadata_pipeline(self):
        pool = self.token_to_kv_pool
        swa_pool = pool if isinstance(pool, SWAKVPool) else None
        tables = None
        while True:
            forward_batch = yield tables
            tables = swa_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc) if (
                swa_pool is not None) else forward_batch.out_cache_loc

    def init_forward_metadata(self, forward_batch):
        self.tables = self._pipeline.send(forward_batch)


class HandedSelfPipelineAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._tables = window_tables(self)  # expect: KVP001
        next(self._tables)

    def init_forward_metadata(self, forward_batch):
        self.tables = self._tables.send(forward_batch)


class HandedPoolPipelineAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._steps = self._stepper(model_runner.token_to_kv_pool)  # expect: KVP001

    def _stepper(self, pool):
        locs = None
        while True:
            forward_batch = yield locs
            locs = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)

    def init_forward_metadata(self, forward_batch):
        self.locs = self._steps.send(forward_batch)
