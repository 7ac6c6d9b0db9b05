import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Kind(enum.Enum):
    FULL = "full"
    SWA = "swa"


def kind_of(pool):
    return Kind.SWA if isinstance(pool, SWAKVPool) else Kind.FULL


_DECODE_BY_KIND = {Kind.SWA: "_decode_swa", Kind.FULL: "_decode_full"}


class DispatchAttnBackend(AttentionBackend):
    """The implementation picked once, by name, from a table keyed by a pool type verdict:
    which bound method it is is that verdict, kept."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        kind = kind_of(model_runner.token_to_kv_pool)
        self._decode = getattr(self, _DECODE_BY_KIND[kind])  # expect: KVP002
        name = "_decode_swa" if hasattr(model_runner.token_to_kv_pool, "swa_kv_pool") else (
            "_decode_full")
        self._extend = getattr(self, name)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._decode(q, layer, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._extend(q, layer, forward_batch)

    def _decode_swa(self, q, layer, forward_batch):
        loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]

    def _decode_full(self, q, layer, forward_batch):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
