"""The heir: a narrower mirror of the resolved pool, and gates on it."""
from .base import Base


class Heir(Base):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.use_sliding_window_kv_pool = (
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )
        self._swa_sub_pool = self._swa_kv_pool.swa_kv_pool if self.use_sliding_window_kv_pool else None

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.use_sliding_window_kv_pool:
            return self._swa_sub_pool
        return q
