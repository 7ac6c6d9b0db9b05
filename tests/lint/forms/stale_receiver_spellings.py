"""The object a method works on, named otherwise than ``self``: ``this``, ``backend``, the
object ``__new__`` makes (``obj = super().__new__(cls)``), a classmethod's ``klass``."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ThisAttnBackend(AttentionBackend):
    def __init__(this, model_runner):
        super().__init__()
        this.token_to_kv_pool = model_runner.token_to_kv_pool
        this.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_decode(this, q, k, v, layer, forward_batch, save_kv_cache=True):
        if this.is_swa:  # expect: KVP003
            return this.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return q


class BackendNamedAttnBackend(AttentionBackend):
    def __init__(backend, model_runner):
        super().__init__()
        backend.token_to_kv_pool = model_runner.token_to_kv_pool
        backend._setup(model_runner)

    def _setup(backend, model_runner):
        backend.window_pool = model_runner.token_to_kv_pool.swa_kv_pool  # expect: KVP001

    def forward_decode(backend, q, k, v, layer, forward_batch, save_kv_cache=True):
        return backend.window_pool.get_key_buffer(layer.layer_id)


class MadeInNewAttnBackend(AttentionBackend):
    def __new__(cls, model_runner, *args, **kwargs):
        made = super().__new__(cls)
        made.window_map = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        return made

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.window_map[forward_batch.out_cache_loc]


class KlassConfiguredAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        type(self).configure(model_runner)

    @classmethod
    def configure(klass, model_runner):
        klass.hybrid = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.hybrid:  # expect: KVP003
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return q
