"""Correct look-alikes of ``stale_receiver_spellings``: the object named otherwise than
``self`` keeps geometry only and reads the live pool per forward; a receiver named like
another function's parameter; ``__new__``'s made object holding geometry."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ThisGeometryAttnBackend(AttentionBackend):
    def __init__(this, model_runner):
        super().__init__()
        this.token_to_kv_pool = model_runner.token_to_kv_pool
        this.window = model_runner.model_config.sliding_window_size or -1

    def forward_decode(this, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = this.token_to_kv_pool
        if isinstance(pool, SWAKVPool) and this.window > 0:
            return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return q


class BackendNamedLiveAttnBackend(AttentionBackend):
    def __init__(backend, model_runner):
        super().__init__()
        backend.token_to_kv_pool = model_runner.token_to_kv_pool
        backend.pick = lambda backend: backend.token_to_kv_pool  # (its own parameter)

    def _window_pool(backend):
        pool = backend.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(backend, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = backend._window_pool()
        if window is not None:
            return window.get_key_buffer(layer.layer_id)
        return q


class MadeInNewGeometryAttnBackend(AttentionBackend):
    def __new__(cls, model_runner, *args, **kwargs):
        made = super().__new__(cls)
        made.page_size = model_runner.page_size
        return made

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool.full_to_swa_index_mapping[forward_batch.out_cache_loc]
        return q
