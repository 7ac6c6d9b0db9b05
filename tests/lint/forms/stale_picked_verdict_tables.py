import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Layout(enum.Enum):
    FULL = "full"
    SWA = "swa"


def layout_of(pool):
    if isinstance(pool, SWAKVPool):
        return Layout.SWA
    return Layout.FULL


class KindTableAttnBackend(AttentionBackend):
    """Per-layer tables filled entry by entry with what a pool type test picked (an enum
    member, a string): tables of verdicts made once, not pool data."""

    _layout_by_layer = {}

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.kinds = {}
        for layer_id in range(model_runner.model_config.num_hidden_layers):
            self._note(layer_id, pool)
            kind = "swa" if hasattr(pool, "swa_kv_pool") else "full"
            self.kinds[layer_id] = kind  # expect: KVP002

    @classmethod
    def _note(cls, layer_id, pool):
        cls._layout_by_layer[layer_id] = layout_of(pool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self._layout_by_layer.get(layer.layer_id) is Layout.SWA:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.kinds[layer.layer_id] == "swa":  # expect: KVP003
            loc = loc[-1:]
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]
