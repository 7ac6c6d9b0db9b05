import enum

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class Kind(enum.Enum):
    FULL = "full"
    SWA = "swa"


def kind_of(pool):
    return Kind.SWA if isinstance(pool, SWAKVPool) else Kind.FULL


_DECODE_BY_KIND = {Kind.SWA: "_decode_swa", Kind.FULL: "_decode_full"}


class LiveDispatchAttnBackend(AttentionBackend):
    """The implementation picked by name from the model's geometry once, and from the pool of
    each forward where the pool decides."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        windowed = (model_runner.sliding_window_size or -1) > 0
        self._extend = getattr(self, "_extend_windowed" if windowed else "_extend_dense")
        self._hooks = [getattr(self, name) for name in ("_decode_swa", "_decode_full")]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        decode = getattr(self, _DECODE_BY_KIND[kind_of(self.token_to_kv_pool)])
        return decode(q, layer, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._extend(q, layer, forward_batch)

    def _extend_windowed(self, q, layer, forward_batch):
        return q[:, -layer.sliding_window_size:]

    def _extend_dense(self, q, layer, forward_batch):
        return q

    def _decode_swa(self, q, layer, forward_batch):
        loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]

    def _decode_full(self, q, layer, forward_batch):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
