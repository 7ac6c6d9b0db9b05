"""The backends the builders of ``factory`` build: a gate on a field only a builder sets is a
decision on what that builder kept (seen with the package: per file, no builder is in sight)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import pools


class BuiltAttnBackend(AttentionBackend):
    target_is_hybrid: bool = False  # set by factory.create_verdict_backend
    window_override = None  # set by factory.create_resolved_backend

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.target_is_hybrid:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self._swa_kv_pool is not None:
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.window_override is not None:
            forward_batch.seq_lens.clamp_(max=self.window_override)
        return loc


class HandedAttnBackend(AttentionBackend):
    """Handed to ``pools.attach_verdict`` (annotated with this class) after it is built."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hybrid_at_build = False
        pools.remember_pool(self, model_runner)  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.hybrid_at_build:  # expect: KVP003
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
