"""Correct look-alikes of the helpers handed the backend: written for the runner, asked in a
forward about the backend itself, whose token_to_kv_pool the swap keeps current."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def window_half(model_runner):
    return getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)


class SelfAskedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @staticmethod
    def _windowed(model_runner) -> bool:
        return isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    @classmethod
    def _mapped(cls, runner) -> bool:
        return hasattr(runner.token_to_kv_pool, "full_to_swa_index_mapping")

    def _half_for(self, layer, owner):
        return window_half(owner) if layer.sliding_window_size > 0 else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._windowed(self):
            half = window_half(self)
            if half is not None:
                return half.get_key_buffer(layer.layer_id)
        if SelfAskedAttnBackend._mapped(self):
            return None
        half = self._half_for(layer, self)
        if half is not None:
            return half.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class WindowProbe:
    """A probe class of the module whose factories are handed the backend."""

    def __init__(self, half):
        self.half = half

    @staticmethod
    def half_of(runner):
        pool = runner.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    @classmethod
    def windowed(cls, runner) -> bool:
        return isinstance(runner.token_to_kv_pool, SWAKVPool)


class ProbeAskedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        half = WindowProbe.half_of(self)
        if half is not None:
            return half.get_key_buffer(layer.layer_id)
        if WindowProbe.windowed(self):
            return None
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
