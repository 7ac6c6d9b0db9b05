"""Decisions made through a helper (issue 13, fp6): one defect, one finding.

A helper that decides on stale state itself (``return self.use_swa and layer.window > 0``, an
``if`` on the flag) is the defect: the finding is there, and fixing it fixes every caller, so a
caller gating on its result is no second finding. A helper that only hands a stale verdict back
(``return self.use_swa``) decides nothing: the caller's gate is the one finding, and its message
names the helper and the flag it returns.
"""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class DecidingHelperAttnBackend(AttentionBackend):
    """The helper combines the flag with geometry (ascend's ``_is_swa_layer``)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _is_swa_layer(self, layer) -> bool:
        return self.hybrid and layer.sliding_window_size is not None  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._is_swa_layer(layer):
            return forward_batch.swa_page_table
        table = forward_batch.swa_page_table if self._is_swa_layer(layer) else None
        return table


class BranchingHelperAttnBackend(AttentionBackend):
    """The helper branches on the flag; callers alias its result or negate it."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _window_pages(self, metadata):
        if self.windowed:  # expect: KVP003
            return metadata.swa_page_table is not None
        return False

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        paged = self._window_pages(forward_batch)
        if paged:
            return forward_batch.swa_page_table
        while not self._window_pages(forward_batch):
            break
        return forward_batch.page_table


class ChainedHelperAttnBackend(AttentionBackend):
    """A helper calling a deciding helper: still the inner helper's one defect."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.sw = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _sw_layer(self, layer_id):
        return self.sw and layer_id % 2 == 0  # expect: KVP003

    def _needs_window_loc(self, layer):
        return self._sw_layer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._needs_window_loc(layer):
            return forward_batch.swa_page_table
        return forward_batch.page_table


class VerdictHelperAttnBackend(AttentionBackend):
    """The helper only returns the flag: the caller decides, and is the one finding."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa_on = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def _swa_enabled(self):
        return self.swa_on

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_enabled():  # expect: KVP003
            return forward_batch.swa_page_table
        return forward_batch.page_table


class PropertyHelpersAttnBackend(AttentionBackend):
    """The same through properties: read like attributes, run like helpers."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid_pool = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    @property
    def windowed(self):
        return self.hybrid_pool and self.window_size > 0  # expect: KVP003

    @property
    def hybrid(self):
        return self.hybrid_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:
            return forward_batch.swa_page_table
        if self.hybrid:  # expect: KVP003
            return q
        return forward_batch.page_table
