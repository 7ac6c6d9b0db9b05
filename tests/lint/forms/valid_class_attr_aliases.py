import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ClassGeometryAttnBackend(AttentionBackend):
    """Class attributes that hold geometry, and pool state read per forward: aliases of them
    in locals decide nothing stale."""

    page_size = 16
    window_left = -1

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        type(self).window_left = model_runner.sliding_window_size or -1

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = type(self).window_left
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        if window > 0 and isinstance(pool, SWAKVPool):
            loc = pool.translate_loc_from_full_to_swa(loc)
        step = ClassGeometryAttnBackend.page_size
        return torch.div(loc, step, rounding_mode="floor")
