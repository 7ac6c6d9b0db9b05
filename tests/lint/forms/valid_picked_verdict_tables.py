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


class WindowKindTableAttnBackend(AttentionBackend):
    """Per-layer tables of kinds picked by the model's geometry, and one of pool verdicts
    filled again on every forward from the pool of that forward."""

    _window_kind_by_layer = {}

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.live_kinds = {}
        self.window = model_runner.sliding_window_size or -1
        for layer_id in range(model_runner.model_config.num_hidden_layers):
            self._note(layer_id, self.window)

    @classmethod
    def _note(cls, layer_id, window):
        cls._window_kind_by_layer[layer_id] = Layout.SWA if window > 0 else Layout.FULL

    def init_forward_metadata(self, forward_batch):
        for layer_id in self._window_kind_by_layer:
            self.live_kinds[layer_id] = layout_of(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.live_kinds.get(layer.layer_id) is Layout.SWA:
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self._window_kind_by_layer[layer.layer_id] is Layout.SWA:
            loc = loc[-self.window:]
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]
