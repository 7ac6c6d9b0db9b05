"""``operator.methodcaller("m", *args)(pool)`` is ``pool.m(*args)``: spelled in place, bound to a
module global or a local first, its result kept is the pool's data of that moment."""
from __future__ import annotations

import operator
from operator import methodcaller

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_FIRST_VALUES = operator.methodcaller("get_value_buffer", 0)


class MethodCallerKeptAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.k0 = operator.methodcaller("get_key_buffer", layer_id=0)(pool)  # expect: KVP001
        self.v0 = _FIRST_VALUES(pool)  # expect: KVP001
        fetch = methodcaller("get_kv_buffer", 0)
        self.kv0 = fetch(self.token_to_kv_pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if layer.layer_id == 0 and self.k0 is not None:  # expect: KVP003
            return self.k0, self.v0
        return self.kv0
