"""Look-alikes of ``stale_live_pool_verdicts``: the same verdicts picked from
``self.token_to_kv_pool`` on every forward, or read through a property, and kept choices made
from the model config rather than the pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveVerdictAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        match model_runner.model_config.attention_arch:
            case "mla":
                family = "latent"
            case _:
                family = "dense"
        self.family = family
        self.tile = 64 if model_runner.page_size > 1 else 128

    @property
    def route(self):
        return 2 if hasattr(self.token_to_kv_pool, "translate_loc_from_full_to_swa") else 1

    def init_forward_metadata(self, forward_batch):
        match self.token_to_kv_pool:
            case SWAKVPool():
                kind = "windowed"
            case _:
                kind = "dense"
        self.kind = kind
        loc = forward_batch.out_cache_loc
        if self.kind == "windowed" and self.route > 1:
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc) // self.tile
        forward_batch.read_loc = loc
