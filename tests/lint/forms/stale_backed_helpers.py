"""Helper objects a backend builds with itself (``Helper(self)``): the helper keeps the
backend in an attribute and reads the pool through it. ``self.backend.token_to_kv_pool`` is
the pool a FROZEN_KV swap rebinds, so what the helper derives from it and keeps (in its
constructor, in a method the constructor calls, in a memo filled when the backend first asks)
is the pool of that moment, stale after the swap, as if the backend had kept it itself."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowPlanner:
    def __init__(self, backend):
        self.backend = backend
        self.window_pool = self.backend.token_to_kv_pool.swa_kv_pool


class MappingHolder:
    def __init__(self, attn_backend, page_size):
        self.attn_backend = attn_backend
        self.page_size = page_size
        self.mapping = None
        self._setup()

    def _setup(self):
        pool = self.attn_backend.token_to_kv_pool
        self.mapping = pool.full_to_swa_index_mapping if isinstance(pool, SWAKVPool) else None


class BackedHelpersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.planner = WindowPlanner(self)  # expect: KVP001
        self.holder = MappingHolder(self, model_runner.page_size)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return torch.empty_like(q), self.planner.window_pool, self.holder.mapping


class KeywordBackedAttnBackend(AttentionBackend):
    """Handed by keyword to a helper defined later in the module: a type decision kept."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.aliased = AliasedHolder(attn_backend=self)  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.aliased.windowed


class AliasedHolder:
    def __init__(self, attn_backend):
        self.attn_backend = attn_backend
        self.windowed = isinstance(self.attn_backend.token_to_kv_pool, SWAKVPool)


class TranslatorMemo:
    """Filled on the first call, never checked against the pool again."""

    def __init__(self, backend):
        self.backend = backend
        self._translate = None
        self._per_layer = {}

    def translator(self):
        if self._translate is None:
            self._translate = self.backend.token_to_kv_pool.translate_loc_from_full_to_swa
        return self._translate

    def layer_buffer(self, layer_id):
        if layer_id not in self._per_layer:
            self._per_layer[layer_id] = self.backend.token_to_kv_pool.get_key_buffer(layer_id)
        return self._per_layer[layer_id]


class MemoBackedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.memo = TranslatorMemo(self)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = self.memo.translator()(forward_batch.out_cache_loc)
        return self.memo.layer_buffer(layer.layer_id), loc
