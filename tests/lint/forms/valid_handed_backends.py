from typing import ClassVar, Dict

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveStepBackend(AttentionBackend):
    """A per-step backend handed geometry; it tests its own pool per forward."""

    def __init__(self, model_runner, step_id: int = 0, page_size: int = 1):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.step_id = step_id
        self.page_size = page_size
        self._window = None

    def bind_window(self, window: int):
        self._window = window

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q if isinstance(self.token_to_kv_pool, SWAKVPool) else k


class LiveMultiStepDraftBackend:
    """Hands each step backend geometry only."""

    def __init__(self, model_runner, topk, steps):
        self.attn_backends = [
            LiveStepBackend(model_runner, step_id=i, page_size=model_runner.page_size)
            for i in range(steps - 1)]
        for child in self.attn_backends:
            child.bind_window(model_runner.sliding_window_size)


class LiveSubPoolMixin:
    def _bind_window(self, window):
        self._window = window

    def _window_pool(self):
        pool = self.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


class LiveMixinBackend(LiveSubPoolMixin, AttentionBackend):
    """The mixin keeps geometry; the sub-pool is read off the live pool per forward; a class
    table keyed by the pool itself."""

    _kinds: ClassVar[Dict[int, bool]] = {}

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._bind_window(model_runner.sliding_window_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        table = type(self)._kinds
        pool = self.token_to_kv_pool
        if id(pool) not in table:
            table[id(pool)] = isinstance(pool, SWAKVPool)
        sub = self._window_pool()
        return sub.get_key_buffer(layer.layer_id) if sub is not None else q
