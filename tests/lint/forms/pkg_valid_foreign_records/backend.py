from pkg_valid_foreign_records.layouts import WindowLayout
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class FreshLayoutAttnBackend(AttentionBackend):
    """A record of another module kept with geometry only, and one rebuilt from the live pool
    every forward: its fields decide nothing stale."""

    def __init__(self, model_runner):
        self.geometry = WindowLayout(window=model_runner.sliding_window_size, page_size=16)

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        windowed = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        self.layout = WindowLayout(self.geometry.window, self.geometry.page_size, windowed)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.geometry.window > 0 and self.layout.window_pool is not None:
            loc = self.layout.window_pool.translate_loc_from_full_to_swa(loc)
        return loc
