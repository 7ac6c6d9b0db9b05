from typing import Optional, overload

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@overload
def window_of(pool: SWAKVPool) -> SWAKVPool: ...
@overload
def window_of(pool: object) -> Optional[SWAKVPool]: ...
def window_of(pool):
    return pool if isinstance(pool, SWAKVPool) else None


class TypedBackend(AttentionBackend):
    """A helper typed with overload stubs: the def that runs is the last one."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = window_of(model_runner.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.window is not None:  # expect: KVP003
            self.loc = self.window.translate_loc_from_full_to_swa(forward_batch.loc)
