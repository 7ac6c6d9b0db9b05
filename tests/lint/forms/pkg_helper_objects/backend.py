"""The backend: each helper judged by what its class, in another module, keeps."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import kv_helpers as kh
from .inner import PlainInnerBackend
from .kv_helpers import IndicesUpdater, PoolGeometry, WindowProbe


class HelperPackageAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.updater = IndicesUpdater(pool, self)  # expect: KVP001
        self.update_loc = kh.IndicesUpdater(pool, self).update  # expect: KVP001
        self.probe = WindowProbe(pool)  # expect: KVP001
        self.geometry = PoolGeometry(pool)
        self.live = kh.LiveUpdater(self)
        self.live_update = kh.LiveUpdater(self).update
        self.decode_backend = PlainInnerBackend(model_runner)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.probe.uses_window_pool:  # expect: KVP003
            return self.live_update(forward_batch.out_cache_loc)
        if self.probe.page_size > 1 and self.geometry.head_dim:
            return q
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch)
