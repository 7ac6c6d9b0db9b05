"""The heir: the resolved pool, its mirror and a gate on the mirror."""
from .base import HookedBase


class ResolvedHeirBackend(HookedBase):
    def _build_helpers(self, model_runner):
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_sliding_window_kv_pool:
            return k
        return q
