from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_TRANSLATORS = {}
_WINDOW_POOLS = {}
_PAGES = {}


class GlobalTableAttnBackend(AttentionBackend):
    """Tables of the module filled from the pool at construction; forward code decides on what
    an entry holds, read straight off the table."""

    def __init__(self, model_runner, name="target"):
        self.name = name
        pool = model_runner.token_to_kv_pool
        _PAGES[name] = model_runner.page_size
        if isinstance(pool, SWAKVPool):
            _TRANSLATORS[name] = pool.translate_loc_from_full_to_swa  # expect: KVP001
        _WINDOW_POOLS[name] = getattr(pool, "swa_kv_pool", None)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if _TRANSLATORS.get(self.name) is not None:  # expect: KVP003
            loc = _TRANSLATORS[self.name](loc)
        pool = _WINDOW_POOLS[self.name] or forward_batch.token_to_kv_pool  # expect: KVP003
        if _PAGES.get(self.name, 1) > 1:
            loc = loc // _PAGES[self.name]
        return pool.get_key_buffer(layer.layer_id)[loc]
