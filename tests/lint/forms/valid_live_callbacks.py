"""The look-alike of ``stale_kept_callbacks``: callbacks that read the pool when they run (a
method of the backend reading ``self.token_to_kv_pool``, a nested ``def`` doing the same), and
a finalizer and an exit hook handed no pool."""
from __future__ import annotations

import atexit
import weakref

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def _close(stream):
    stream.synchronize()


class LiveCallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.stream = model_runner.device
        self._replays = {}
        self._finalizer = weakref.finalize(self, _close, self.stream)
        self._dump = atexit.register(self.close)
        self._live_loc = lambda loc: self._translate_live(loc)

    def close(self):
        return None

    def _translate_live(self, loc):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool.translate_loc_from_full_to_swa(loc)
        return loc

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        def _replay_translate(bs, out_cache_loc):
            mapping = self.token_to_kv_pool.full_to_swa_index_mapping
            self.scratch[:bs].copy_(mapping[out_cache_loc[:bs]])

        self._replays["translate"] = _replay_translate
