"""Correct look-alikes of a wrapper gating on its inner backends' flags: a multi-step draft
wrapper (it only follows the protocol, no attention backend base) over per-step backends of the
module whose class name does not end in ``Backend`` (``...BackendV2``, ``StepKernel``): its
steps are EAGLE's, built on the draft's own pool and never handed a FROZEN_KV swap, so what their
flags say holds for them, whatever the class is called."""
from __future__ import annotations

from typing import List, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class StepAttnBackendV2(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner) -> Optional[SWAKVPool]:
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            return pool
        if model_runner.is_draft_worker and not model_runner.spec_algorithm.is_frozen_kv_mtp():
            return None
        cache = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return cache if isinstance(cache, SWAKVPool) else None

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return self._swa_kv_pool is not None


class StepKernel(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class StepsDraftWrapper:
    def __init__(self, model_runner, steps: int):
        self.attn_backends: List[StepAttnBackendV2] = [
            StepAttnBackendV2(model_runner) for _ in range(steps)]
        self.kernels = [StepKernel(model_runner) for _ in range(steps)]

    def init_forward_metadata(self, forward_batch):
        if self.attn_backends[0].use_sliding_window_kv_pool:
            forward_batch.windowed = True
        for step, kernel in enumerate(self.kernels):
            if not kernel.use_sliding_window_kv_pool:
                forward_batch.full_steps = step
