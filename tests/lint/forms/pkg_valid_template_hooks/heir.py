from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from .base import GeometryBase


class WindowSizedBackend(GeometryBase):
    def _window_size(self, model_runner):
        return model_runner.sliding_window_size or -1

    def _is_windowed(self, pool):  # a hook asked per forward: decided on the pool of the batch
        return isinstance(pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window > 0 and self._is_windowed(self.token_to_kv_pool):
            return q
        return k
