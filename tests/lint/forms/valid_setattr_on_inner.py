from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ComposedBackend(AttentionBackend):
    """setattr on objects the backend keeps, with geometry; the pool decided per forward."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.state = State()
        setattr(self.state, "page_size", pool.page_size)

    def init_forward_metadata(self, forward_batch):
        setattr(self.state, "windowed", isinstance(self.token_to_kv_pool, SWAKVPool))
