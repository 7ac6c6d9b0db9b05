import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ClassTableAttnBackend(AttentionBackend):
    """Pool state kept on the class (shared by every instance of the worker) and read back
    through a local in every spelling of a class attribute."""

    window_mapping = None
    window_translate = None
    page_size = 16

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        if type(self).window_mapping is None and isinstance(pool, SWAKVPool):
            type(self).window_mapping = pool.full_to_swa_index_mapping  # expect: KVP001
            ClassTableAttnBackend.window_translate = pool.translate_loc_from_full_to_swa  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        mapping = type(self).window_mapping
        self.swa_loc = mapping[forward_batch.out_cache_loc] if mapping is not None else None  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        translate = ClassTableAttnBackend.window_translate
        loc = forward_batch.out_cache_loc
        if translate is not None:  # expect: KVP003
            loc = translate(loc)
        step = self.__class__.page_size
        return torch.div(loc, step, rounding_mode="floor")

    @classmethod
    def reset_tables(cls):
        table = cls.window_mapping
        if table is None:  # expect: KVP003
            return False
        table.zero_()
        return True
