from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .traits import CountingMeta, registered, registered_as


@registered_as("paged")
@registered
class PagedBackend(AttentionBackend, metaclass=CountingMeta):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if isinstance(self.token_to_kv_pool, SWAKVPool) and self.page_size > 1:
            return q
        return k
