"""The base of a backend family keeps the pool's translator where a type test of the pool put
it: only there (nothing elsewhere), or None in the other branch."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class TranslatingBaseAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.translate = pool.translate_loc_from_full_to_swa  # expect: KVP001
            self.to_swa = pool.translate_loc_from_full_to_swa  # expect: KVP001
        else:
            self.to_swa = None
