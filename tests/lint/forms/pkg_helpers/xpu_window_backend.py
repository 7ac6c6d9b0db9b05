"""A backend importing the helpers as a module alias, by name, and under a conditional import."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import swa_utils as su
from .swa_utils import resolve_swa_kv_pool as resolve_pool
from .swa_utils import window_of

try:
    from .swa_utils import swa_sub_pools
except ImportError:  # older package layout
    swa_sub_pools = None


class XpuWindowAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = window_of(model_runner)
        self._swa_kv_pool = resolve_pool(model_runner)
        self.picked_pool = su.pick_swa_pool(model_runner)  # expect: KVP001
        self.full_part, self.swa_part = swa_sub_pools(self.token_to_kv_pool)  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._swa_kv_pool is not None and layer.sliding_window_size > 0:
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            return self._swa_extend(q, k, v, layer, loc)
        return self._extend(q, k, v, layer, forward_batch.out_cache_loc)
