from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import live_helpers
from .live_helpers import keep_geometry, swa_rows


class LiveBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = live_helpers.resolve_swa_pool(self, model_runner)
        keep_geometry(self, model_runner)

    def init_forward_metadata(self, forward_batch):
        live_helpers.refresh_for_batch(self, forward_batch)
        live_helpers.bind_batch_mapping(self, self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window > 0:
            q = q * layer.scaling
        if self.batch_swa_pool is not None:
            q = q + 1
        return swa_rows(self, forward_batch.out_cache_loc), q
