"""A local holding a test of kept pool state (``swa = self.layout is Layout.SWA``) is that test:
the first decision reading the local is the gate, reported where it decides."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Layout(enum.Enum):
    SWA = "swa"
    FULL = "full"


@dataclass
class _Plan:
    layout: Layout
    window: int


class HeldTestAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.layout = Layout.SWA if isinstance(pool, SWAKVPool) else Layout.FULL  # expect: KVP002
        self.plan = _Plan(self.layout, model_runner.sliding_window_size)  # expect: KVP001
        self.is_swa = isinstance(pool, SWAKVPool)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        windowed = self.plan.layout == Layout.SWA
        loc = forward_batch.out_cache_loc
        forward_batch.swa_loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(
            loc) if windowed else loc  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        full = not self.is_swa and layer.sliding_window_size < 0
        if full:  # expect: KVP003
            return q
        picked = self.layout is not Layout.FULL
        while picked:  # expect: KVP003
            picked = False
        return k
