from pkg_foreign_records import api
from pkg_foreign_records.layouts import WindowLayout
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class RecordedLayoutAttnBackend(AttentionBackend):
    """Records defined in another module of the package, built from the pool once: each field
    holds what it was built with, whichever way the record is spelled or filled."""

    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        windowed = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        self.layout = WindowLayout(window=4, page_size=16, window_pool=windowed)  # expect: KVP001
        self.routes = api.KernelRoutes(pool.translate_loc_from_full_to_swa, None, 8)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.layout.window_pool is not None:  # expect: KVP003
            loc = self.routes.translate(loc) if self.routes.translate else loc  # expect: KVP003
        if self.layout.page_size > 1 and self.routes.heads:
            return loc // self.layout.page_size
        return loc
