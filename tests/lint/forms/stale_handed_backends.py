from typing import ClassVar, Dict

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class StepBackend(AttentionBackend):
    """A per-step backend: keeps what it is handed."""

    def __init__(self, model_runner, window_kv: bool = False):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_kv = window_kv
        self._sub = None

    def bind_window_pool(self, sub_pool):
        self._sub = sub_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q if self.window_kv or self._sub is not None else k


class MultiStepDraftBackend:
    """Decides once, hands the verdict to each step backend it builds."""

    def __init__(self, model_runner, topk, steps):
        window_kv = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")
        self.attn_backends = [  # expect: KVP001
            StepBackend(model_runner, window_kv=window_kv) for _ in range(steps - 1)]

    def init_forward_metadata(self, forward_batch):
        for backend in self.attn_backends:
            backend.init_forward_metadata(forward_batch)


class HybridBindBackend(AttentionBackend):
    """Hands the init-time SWA sub-pool to the inner backends it holds (the list holding them
    holds what they keep)."""

    def __init__(self, model_runner):
        super().__init__()
        self.prefill_backend = StepBackend(model_runner)
        self.decode_backend = StepBackend(model_runner)
        self.inner = [self.prefill_backend, self.decode_backend]  # expect: KVP001
        pool = model_runner.token_to_kv_pool
        sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
        self.prefill_backend.bind_window_pool(sub)  # expect: KVP001
        for child in self.inner:
            child.bind_window_pool(sub)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch)


class SubPoolMixin:
    """A mixin binding the halves of a hybrid pool."""

    def _bind_sub_pools(self, pool):
        if isinstance(pool, SWAKVPool):
            self._window_pool = pool.swa_kv_pool
        else:
            self._window_pool = None


class MixinBoundBackend(SubPoolMixin, AttentionBackend):
    """Calls the mixin's binder at init: what it keeps is kept here."""

    _layer_kind: ClassVar[Dict[int, bool]] = {}

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._bind_sub_pools(self.token_to_kv_pool)  # expect: KVP001

    def _in_window(self, layer_id):
        table = type(self)._layer_kind
        hit = table.get(layer_id)
        if hit is None:  # expect: KVP003
            hit = isinstance(self.token_to_kv_pool, SWAKVPool)
            table[layer_id] = hit  # expect: KVP002
        return hit

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._window_pool is not None and self._in_window(layer.layer_id):  # expect: KVP003
            return self._window_pool.get_key_buffer(layer.layer_id)
        return q
