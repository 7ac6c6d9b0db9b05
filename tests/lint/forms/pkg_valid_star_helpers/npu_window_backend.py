"""Star-imported helpers: geometry and the resolved pool kept, the live pool probed per forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .kv_probes import *  # noqa: F403


class NpuWindowAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.heads = heads_of(model_runner.model_config)
        self._swa_kv_pool = resolve_window_pool(model_runner)

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if probe_swa(self.token_to_kv_pool):
            loc = PoolView.translate(self.token_to_kv_pool, loc)
        self.forward_metadata = loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        full, window = sub_pools(self.token_to_kv_pool)
        pool = window if self._swa_kv_pool is not None and layer.sliding_window_size > 0 else full
        return pool, self.heads
