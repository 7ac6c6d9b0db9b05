"""Correct look-alikes of the picked verdicts: the same values picked again from the live pool
in each forward, and values picked by geometry or by the model's class, kept once."""
from __future__ import annotations

import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class Paging(enum.Enum):
    TWO_LEVEL = 2
    ONE_LEVEL = 1


def paging_of(pool) -> Paging:
    if getattr(pool, "full_to_swa_index_mapping", None) is None:
        return Paging.ONE_LEVEL
    return Paging.TWO_LEVEL


class LivePickedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size
        self.tile = 64 if window is not None and window > 0 else 128
        self.family = "encoder" if model_runner.model_config.is_encoder_decoder else "decoder"

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        family = "windowed_decode" if hasattr(pool, "translate_loc_from_full_to_swa") else "dense_decode"
        loc = forward_batch.out_cache_loc
        if family == "windowed_decode":
            loc = pool.translate_loc_from_full_to_swa(loc)
        if paging_of(pool) is Paging.TWO_LEVEL and self.family == "decoder":
            loc = loc.long()
        return q, loc, self.tile
