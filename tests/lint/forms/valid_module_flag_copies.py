"""Correct look-alikes of a local copy of a module global: the global holds configuration or
geometry (a window size, an environment switch, a page size kept on a ``threading.local``)."""
from __future__ import annotations

import os
import threading

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_LOCAL = threading.local()
_DEBUG = os.environ.get("ATTN_DEBUG", "0") == "1"
_WINDOW = 4096


class ConfigCopyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        _LOCAL.page_size = model_runner.page_size

    def init_forward_metadata(self, forward_batch):
        debug = _DEBUG
        if debug:
            forward_batch.debug = True
        page = _LOCAL.page_size
        forward_batch.pages = forward_batch.seq_lens // page if page > 1 else forward_batch.seq_lens

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = _WINDOW
        if window > 0 and layer.sliding_window_size > 0:
            return q
        return k
