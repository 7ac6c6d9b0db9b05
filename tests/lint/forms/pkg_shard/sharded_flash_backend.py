"""A FlashAttention-style backend using the helpers of ``kv_shard_hooks`` in its ``__init__``."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.kv_shard_hooks import (
    get_kv_shard_pool,
    is_window_pool,
    shard_page_count,
)

from . import kv_shard_hooks as hooks


class ShardedFlashAttentionBackend(AttentionBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.max_pages = shard_page_count(self.page_size, model_runner.model_config.context_len)
        self._kv_shard_pool = get_kv_shard_pool(self.token_to_kv_pool)  # expect: KVP001
        self.window_pool = is_window_pool(model_runner.token_to_kv_pool)  # expect: KVP002
        self._to_swa = hooks.window_translate_of(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self._kv_shard_pool is not None:  # expect: KVP003
            self._kv_shard_pool.begin_shard_extend(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_pool and layer.sliding_window_size > 0:  # expect: KVP003
            return self._swa_decode(q, k, v, layer, forward_batch)
        return self._decode(q, k, v, layer, forward_batch)
