import importlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_probe = importlib.import_module(".probe", __package__)


class ProbedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._layout = _probe.layout_of(self.token_to_kv_pool)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.win_loc = (
            self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
            if self._layout == "dual"  # expect: KVP003
            else loc
        )
