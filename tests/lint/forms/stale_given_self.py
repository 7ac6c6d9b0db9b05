"""Helpers written for the runner and handed the backend itself: called in __init__ they still
answer about the pool of that moment, which the backend then keeps."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_half(model_runner):
    return getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)


class SelfProbedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = self._windowed(self)  # expect: KVP002
        self.window_half = window_half(self)  # expect: KVP001
        self.mapped = SelfProbedAttnBackend._mapped(self)  # expect: KVP002

    @staticmethod
    def _windowed(model_runner) -> bool:
        return isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    @classmethod
    def _mapped(cls, runner) -> bool:
        return hasattr(runner.token_to_kv_pool, "full_to_swa_index_mapping")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:  # expect: KVP003
            return self.window_half.get_key_buffer(layer.layer_id)
        if self.window_half is not None:  # expect: KVP003
            return self.window_half.get_key_buffer(layer.layer_id)
        if self.mapped:  # expect: KVP003
            return None
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class WindowProbe:
    """A probe class of the module whose factories are handed the backend."""

    @staticmethod
    def half_of(runner):
        pool = runner.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    @classmethod
    def windowed(cls, runner) -> bool:
        return isinstance(runner.token_to_kv_pool, SWAKVPool)


class ProbeKeptAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.half = WindowProbe.half_of(self)  # expect: KVP001
        self.windowed = WindowProbe.windowed(self)  # expect: KVP002

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.half is not None:  # expect: KVP003
            return self.half.get_key_buffer(layer.layer_id)
        if self.windowed:  # expect: KVP003
            return None
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
