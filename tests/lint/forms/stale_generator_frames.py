"""A generator kept on the backend keeps its frame: the pool it was handed stays for every
later resume. A method generator handed the pool, as a module one."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


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
