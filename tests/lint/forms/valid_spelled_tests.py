"""Correct look-alikes of tests spelled as calls or hidden in a ``suppress`` block: the live
pool tested per forward, geometry read under ``suppress`` (a head count), and functions named
like the operator module's that are the module's own."""
from __future__ import annotations

import contextlib
import operator

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def contains(haystack, needle):
    return needle in haystack


class SpelledLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.head_num = 8
        with contextlib.suppress(AttributeError):
            self.head_num = model_runner.token_to_kv_pool.head_num
        self.layer_names = ("q_proj", "k_proj")

    def init_forward_metadata(self, forward_batch):
        if operator.is_not(getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None), None):
            forward_batch.translated = True
        if contains(self.layer_names, "q_proj") and self.head_num > 4:
            forward_batch.wide = True
