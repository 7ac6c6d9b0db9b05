"""The hybrid: built once, it hands the SWA sub-pool and the translator to the inner."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import windowed


class HandingHybridBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        swa = getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)
        self.windowed = windowed.SubPoolBackend(  # expect: KVP001
            model_runner,
            target_pool=swa,
            translate=model_runner.token_to_kv_pool.translate_loc_from_full_to_swa,
        )

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.windowed.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)
