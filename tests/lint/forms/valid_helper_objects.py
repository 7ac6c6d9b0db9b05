"""Look-alikes of helper objects: nothing they keep goes stale when the pool is swapped."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class _Geometry:
    def __init__(self, pool, window=None):
        self.page_size = pool.page_size
        self.head_dim = pool.head_dim
        self.window = window
        self._layers(pool)

    def _layers(self, pool):
        self.layer_num = pool.layer_num


class _AllocatorResolver:
    """Asks the allocator for its pool on every call: the resolver itself."""

    def __init__(self, allocator):
        self.allocator = allocator

    def swa_pool(self):
        pool = self.allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None


class _LiveReader:
    """Holds the backend and reads its pool when called."""

    def __init__(self, backend, step=0):
        self.backend = backend
        self.step = step

    def key_buffer(self, layer_id):
        return self.backend.token_to_kv_pool.get_key_buffer(layer_id)


class _Inner(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool


class HelperLookalikesAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.geometry = _Geometry(pool, window=model_runner.sliding_window_size)
        self.sizes = _Geometry(pool.swa_kv_pool if isinstance(pool, SWAKVPool) else pool)
        self.page_size = _Geometry(pool).page_size
        self.resolver = _AllocatorResolver(model_runner.token_to_kv_pool_allocator)
        self.reader = _LiveReader(self, step=1)
        self.read = _LiveReader(self).key_buffer

    def init_forward_metadata(self, forward_batch):
        self.current = _Geometry(self.token_to_kv_pool)  # rebuilt on every forward

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.geometry.window is not None and self.resolver.swa_pool() is not None:
            return q
        return self.read(layer.layer_id)


class HandsPoolOnAttnBackend(AttentionBackend):
    """Inner backends that this backend hands its swapped pool to on every forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.inner = [_Inner(model_runner), _Inner(model_runner)]

    def init_forward_metadata(self, forward_batch):
        for backend in self.inner:
            backend.token_to_kv_pool = self.token_to_kv_pool


class PerStepDraftBackend:
    """Per-step backends of a multi-step draft that keeps no pool of its own: no swap
    rebinds it."""

    def __init__(self, model_runner, steps):
        self.page_size = model_runner.page_size
        self.attn_backends = []
        for _ in range(steps):
            self.attn_backends.append(_Inner(model_runner))
