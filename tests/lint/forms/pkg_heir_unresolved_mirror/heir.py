"""The heir: a mirror of the base's pool of the moment, and gates on it."""
from .base import Base


class Heir(Base):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.use_sliding_window_kv_pool = (  # expect: KVP002
            self._swa_kv_pool is not None and self._swa_kv_pool.swa_layer_nums > 0
        )

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.use_sliding_window_kv_pool:  # expect: KVP003
            return k
        return q
