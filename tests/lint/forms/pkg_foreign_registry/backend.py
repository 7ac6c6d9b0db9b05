from pkg_foreign_registry import tables
from pkg_foreign_registry.tables import PAGE_SIZES, TRANSLATORS, translator_for
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class TabledAttnBackend(AttentionBackend):
    """Pool state stored into tables of another module at construction, read back through
    that module's accessors per forward."""

    def __init__(self, model_runner, name="target"):
        self.name = name
        pool = model_runner.token_to_kv_pool
        PAGE_SIZES[name] = model_runner.page_size
        if isinstance(pool, SWAKVPool):
            TRANSLATORS[name] = pool.translate_loc_from_full_to_swa  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        translate = translator_for(self.name)
        loc = forward_batch.out_cache_loc
        self.loc = translate(loc) if translate is not None else loc  # expect: KVP003
        self.pages = loc // tables.page_size_of(self.name)
