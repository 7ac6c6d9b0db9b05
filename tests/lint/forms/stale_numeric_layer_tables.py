# Per-layer window flags read off a pool's layer map and kept as numbers: an array of ints, a
# list of int() conversions (the shared allocator's pool, read outside any resolver: an EAGLE
# draft owning a full pool marks its layers windowed by the target's map).
from array import array

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class NumericLayerTableBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        layout = kvcache.layers_mapping if isinstance(kvcache, SWAKVPool) else {}
        self.window_layers = array("b", (int(layout.get(i, (i, False))[1]) for i in range(4)))  # expect: KVP001
        self.window_ints = [int(layout[i][1]) for i in layout]  # expect: KVP001
