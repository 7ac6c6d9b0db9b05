"""An exception class of the module raised by a probe can carry pool state out of the ``try``
(``raise Hit(pool.swa_kv_pool)``): what the handler keeps off it (its fields, or the exception
itself) is the sub-pool or mapping of the pool the backend was built with."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Hit(Exception):
    def __init__(self, payload):
        super().__init__("window pool")
        self.payload = payload


class Miss(LookupError):
    pass


def _look_for_window(pool):
    if isinstance(pool, SWAKVPool):
        raise Hit(pool.full_to_swa_index_mapping)
    raise Miss(type(pool).__name__)


class RaisedCarrierAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.loc_table = None
        self.note = ""
        try:
            _look_for_window(self.token_to_kv_pool)
        except Hit as hit:
            self.loc_table = hit.payload  # expect: KVP001
            self.probe_result = hit  # expect: KVP001
        except Miss as miss:
            self.note = str(miss)
        try:
            layers = model_runner.model_config.num_hidden_layers
            if layers <= 0:
                raise Miss("no layers")
        except Miss as empty:
            self.empty_reason = empty

    def init_forward_metadata(self, forward_batch):
        if self.loc_table is None:  # expect: KVP003
            return forward_batch.out_cache_loc
        return self.loc_table[forward_batch.out_cache_loc]


class RaisedPerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.last_probe = None

    def init_forward_metadata(self, forward_batch):
        try:
            _look_for_window(self.token_to_kv_pool)
        except Hit as hit:
            self.last_probe = hit
            return hit.payload[forward_batch.out_cache_loc]
        except Miss:
            return forward_batch.out_cache_loc
        except AttributeError as failed:
            self.last_probe = failed
        return None
