"""Look-alikes of inner-backend gates: live inner flags, the inner's pool, geometry, EAGLE steps."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_backend import TritonAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ViewInnerAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class ViewWrapperAttnBackend(AttentionBackend):
    def __init__(self, model_runner, extend_backend):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.decode_backend = ViewInnerAttnBackend(model_runner)
        self.extend_backend = extend_backend

    def init_forward_metadata(self, forward_batch):
        for inner in (self.decode_backend, self.extend_backend):
            inner.token_to_kv_pool = self.token_to_kv_pool
        windowed = getattr(self.decode_backend, "use_sliding_window_kv_pool", False)
        forward_batch.swa = windowed and self.extend_backend.sliding_window_size > 0
        pool = self.extend_backend.token_to_kv_pool
        if isinstance(pool, SWAKVPool) and self.extend_backend.use_triton_kernel:
            forward_batch.extend_loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)


class EagleStepsDraftBackend:
    """Protocol only: the per-step backends it builds are EAGLE's, never handed a FROZEN_KV swap."""

    def __init__(self, model_runner, steps):
        self.attn_backends = []
        for _ in range(steps):
            self.attn_backends.append(TritonAttnBackend(model_runner))

    def init_forward_metadata(self, forward_batch):
        for backend in self.attn_backends:
            if backend.use_sliding_window_kv_pool:
                forward_batch.swa = True
