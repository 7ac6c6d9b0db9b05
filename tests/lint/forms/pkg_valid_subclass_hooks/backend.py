from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .hooks import LayoutRecorder


class _Resolving:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        original = cls.__init__

        def __init__(self, *args, **kw):
            original(self, *args, **kw)
            pool = self.token_to_kv_pool
            if not isinstance(pool, SWAKVPool):
                kept = self.token_to_kv_pool_allocator.get_kvcache()
                pool = kept if isinstance(kept, SWAKVPool) else None
            self._swa_kv_pool = pool

        cls.__init__ = __init__


class RecordedBackend(LayoutRecorder, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        self.loc = loc


class ResolvedBackend(_Resolving, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_kv_pool is not None:
            return self._swa_kv_pool.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
