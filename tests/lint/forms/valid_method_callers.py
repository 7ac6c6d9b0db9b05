"""Correct look-alikes of method callers: kept as objects and applied to the pool of each forward,
applied to geometry in ``__init__``, or a name shadowing the module's caller."""
from __future__ import annotations

import operator

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_FIRST_KEYS = operator.methodcaller("get_key_buffer", 0)


class MethodCallerLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.keys_of = operator.methodcaller("get_key_buffer", 0)
        self.page_bits = operator.methodcaller("bit_length")(model_runner.page_size)
        _FIRST_KEYS = operator.attrgetter("head_dim")
        self.head_dim = _FIRST_KEYS(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch):
        k0 = self.keys_of(self.token_to_kv_pool)
        if layer.layer_id == 0 and k0 is not None:
            return k0, _FIRST_KEYS(self.token_to_kv_pool)
        return q
