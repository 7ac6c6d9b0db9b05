from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ComposedBackend(AttentionBackend):
    """setattr on objects the backend keeps: an inner record, an alias of it."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        self.state = State()
        setattr(self.state, "windowed", isinstance(pool, SWAKVPool))  # expect: KVP002
        state = self.state
        setattr(state, "window", getattr(pool, "swa_kv_pool", None))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.state.windowed:  # expect: KVP003
            return q
        return k
