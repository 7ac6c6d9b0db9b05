from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_PAGES = {}
_WINDOWS = {}


class GeometryTableAttnBackend(AttentionBackend):
    """Tables of the module holding geometry, and a memo keyed by the pool of each batch:
    decisions on their entries decide nothing stale."""

    def __init__(self, model_runner, name="target"):
        self.name = name
        _PAGES[name] = model_runner.page_size
        _WINDOWS[name] = model_runner.sliding_window_size or -1
        self._by_pool = {}  # what each pool the batch hands in is, keyed by the pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if id(pool) not in self._by_pool:
            self._by_pool[id(pool)] = isinstance(pool, SWAKVPool)
        loc = forward_batch.out_cache_loc
        if _WINDOWS.get(self.name, -1) > 0 and self._by_pool[id(pool)]:
            loc = pool.translate_loc_from_full_to_swa(loc)
        if _PAGES[self.name] > 1:
            loc = loc // _PAGES[self.name]
        return pool.get_key_buffer(layer.layer_id)[loc]
