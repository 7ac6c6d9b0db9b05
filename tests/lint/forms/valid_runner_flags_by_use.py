"""Runner flags that say nothing of SWA and gate nothing the pool's SWA side holds stay plain
configuration: a draft-worker switch, a hybrid flag gating only geometry or the allocator's own
pool (what a resolver asks), a flag under which the SWA state is read per forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.memory_pool import SWAKVPool


class DraftSwitchBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.is_draft = model_runner.is_draft_worker
        if self.is_draft:
            self.page_size = model_runner.token_to_kv_pool.page_size
        self.hybrid = model_runner.is_hybrid
        if self.hybrid:
            self.window = model_runner.sliding_window_size
            self.head_num = model_runner.token_to_kv_pool.swa_head_num

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.hybrid and self.is_draft:
            return self.window
        return self.page_size


class HybridResolverBackend(AttentionBackend):
    """The flag only decides whether to ask the allocator: the resolver pattern."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid = model_runner.is_hybrid
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        if not model_runner.is_hybrid:
            return None
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_extend(self, q, k, v, layer, forward_batch):
        if self.hybrid:
            return self.window_of(layer)
        return None

    def window_of(self, layer):
        return layer.sliding_window_size


class PerForwardHybridBackend(AttentionBackend):
    """The SWA mapping under the flag is read off the live pool on every forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if forward_batch.model_runner.is_hybrid:
            forward_batch.swa_map = self.token_to_kv_pool.full_to_swa_index_mapping


class EncoderDecoderBackend(AttentionBackend):
    """A model flag under which (or where it is false) the live pool's SWA side is read per
    forward: the flag picks a code path, not a pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.is_encoder_decoder = model_runner.model_config.is_encoder_decoder

    def init_forward_metadata(self, forward_batch):
        if not (self.is_encoder_decoder and forward_batch.encoder_lens is not None):
            forward_batch.swa_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
                forward_batch.out_cache_loc)
        if self.is_encoder_decoder:
            forward_batch.swa_map = self.token_to_kv_pool.full_to_swa_index_mapping
