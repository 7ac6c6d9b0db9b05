"""Wrappers deciding on the SWA flag of the inner backends they hold (built or handed in)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_backend import TritonAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class RoutingAttnBackend(AttentionBackend):
    def __init__(self, model_runner, prefill_backend, decode_backend):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.prefill_backend = prefill_backend
        self.decode_backend = decode_backend
        self.backends = {"prefill": prefill_backend, "decode": decode_backend}
        self.swa_backend = TritonAttnBackend(model_runner)

    def init_forward_metadata(self, forward_batch):
        for name, inner in self.backends.items():
            inner.token_to_kv_pool = self.token_to_kv_pool
        chosen = self.backends.get("decode")
        if chosen.use_sliding_window_kv_pool:  # expect: KVP003
            forward_batch.swa = True
        windowed = [b for b in self.backends.values() if b.use_sliding_window_kv_pool]  # expect: KVP003
        forward_batch.windowed = len(windowed)
        prefill_swa = self.prefill_backend.is_hybrid_swa
        forward_batch.prefill_loc = forward_batch.out_cache_loc if prefill_swa else None  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if getattr(self.swa_backend, "use_sliding_window_kv_pool", False) and layer.sliding_window_size > 0:  # expect: KVP003
            return self.swa_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        inner = self.decode_backend if forward_batch.forward_mode.is_decode() else self.prefill_backend
        live = inner.token_to_kv_pool
        if isinstance(live, SWAKVPool) and inner.sliding_window_size > 0:
            forward_batch.out_cache_loc = live.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return inner.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)


class StepsDraftBackend:
    """Multi-step draft wrapper (protocol only): its per-step backends are EAGLE's, never swapped."""

    def __init__(self, model_runner, steps):
        self.attn_backends = [TritonAttnBackend(model_runner) for _ in range(steps)]

    def init_forward_metadata(self, forward_batch):
        if self.attn_backends[0].use_sliding_window_kv_pool:
            forward_batch.swa = True
