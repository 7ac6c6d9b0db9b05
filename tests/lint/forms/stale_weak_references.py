"""A weak reference is the object it refers to: ``weakref.ref(x)()``, ``weakref.proxy(x)`` and
``weakref.WeakMethod(x.m)()`` give what ``x`` was when the backend was built, so a reference to
the pool, a sub-pool or a bound method kept past the swap is that state kept."""
from __future__ import annotations

import weakref
from weakref import WeakMethod, proxy

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class WeakSubPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.swa_view = proxy(pool.swa_kv_pool) if hasattr(pool, "swa_kv_pool") else None  # expect: KVP001
        self.swa_ref = weakref.ref(pool.swa_kv_pool)  # expect: KVP001
        self.write_ref = WeakMethod(pool.set_kv_buffer)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        sub = self.swa_ref()
        if sub is not None:  # expect: KVP003
            forward_batch.loc = sub.full_to_swa_index_mapping[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch):
        if hasattr(self.swa_view, "get_key_buffer"):  # expect: KVP003
            return self.swa_view.get_key_buffer(layer.layer_id)
        return self.write_ref()
