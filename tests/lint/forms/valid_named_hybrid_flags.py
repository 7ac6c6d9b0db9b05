"""Look-alikes of ``stale_named_hybrid_flags``: the same hybrid-pool tests named for SWA but
made on every forward or read through a property, and geometry kept under an SWA name."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveNamedHybridFlagAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.sliding_window_size = model_runner.sliding_window_size
        self.sliding_pages = False

    @property
    def has_swa_split(self):
        return hasattr(self.token_to_kv_pool, "full_kv_pool")

    def init_forward_metadata(self, forward_batch):
        self.sliding_pages = hasattr(self.token_to_kv_pool, "full_kv_pool")
        loc = forward_batch.out_cache_loc
        if self.sliding_pages and self.has_swa_split:
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        forward_batch.read_loc = loc
