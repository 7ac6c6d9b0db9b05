"""Callbacks kept past construction that hold what the pool was then: a nested ``def`` naming a
mapping read at that time (whatever it does with it), a finalizer and an exit hook handed the
pool, all kept on the backend."""
from __future__ import annotations

import atexit
import functools
import weakref

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def _release(pool):
    pool.clear()


class KeptCallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self._replays = {}
        self._finalizer = weakref.finalize(self, _release, pool)  # expect: KVP001
        self._dump = atexit.register(functools.partial(_release, pool))  # expect: KVP001

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        mapping = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)

        def _replay_translate(bs, out_cache_loc):
            self.scratch[:bs].copy_(mapping[out_cache_loc[:bs]])

        self._replays["translate"] = _replay_translate  # expect: KVP001
