"""A mirror of the pool a resolver asked the allocator for, ANDed with geometry (a count of SWA
layers from the model config, a window length): the swap installs the very pool it tests and the
geometry never changes, so the gates on it are right for every role (a mirror alone is KVP004's,
opt-in)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class MirrorGeometryAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        layer_ids = getattr(model_runner.model_config, "swa_attention_layer_ids", None) or []
        self.swa_layer_count = len(layer_ids)
        self.window = model_runner.sliding_window_size or 0
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self.swa_layer_count > 0 and self.window > 0
        )

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, SWAKVPool):
            return active
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(loc)
        return q if loc is None else k
