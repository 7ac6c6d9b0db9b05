# A flag filled on the first forward through a walrus over a defaulted getattr (or over the
# attribute itself) and never refilled: the first forward's pool decides every later one.
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WalrusLazyBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._window_map = None

    def init_forward_metadata(self, forward_batch):
        if (split := getattr(self, "_split_kv", None)) is None:  # expect: KVP003
            split = self._split_kv = isinstance(self.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if (mapping := self._window_map) is None:
            mapping = self._window_map = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        forward_batch.loc = mapping[forward_batch.out_cache_loc] if split else None
