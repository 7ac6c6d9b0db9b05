"""Correct look-alikes of capacity decisions: the capacity read off the pool of this forward, off
the resolved pool or the shared allocator, stored again on every forward, tested once while
building, a live property of the same name, and chained comparisons of geometry."""
from __future__ import annotations

import logging

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

logger = logging.getLogger(__name__)


class CapacityLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or 0
        self.context_len = model_runner.model_config.context_len
        self.shared_slots = model_runner.token_to_kv_pool_allocator.size_swa
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.rows_now = 0
        startup = model_runner.token_to_kv_pool.size
        if startup // self.page_size > 1 << 20:
            logger.info("large KV pool: %d slots", startup)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if hasattr(pool, "swa_kv_pool") else None

    @property
    def kv_slots(self):
        return getattr(self.token_to_kv_pool, "size_swa", 0)

    def init_forward_metadata(self, forward_batch):
        self.rows_now = -(-self.token_to_kv_pool.size // self.page_size)
        used = forward_batch.seq_lens_cpu.sum().item()
        while used >= self.kv_slots > 0:
            used -= self.page_size
        if 0 < self.window <= self.context_len and used > self.shared_slots:
            used = self.shared_slots
        self.forward_metadata = used

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.rows_now == 0 or self.token_to_kv_pool.size < q.shape[0]:
            return q
        if self._swa_kv_pool is not None and self._swa_kv_pool.size_swa > 0:
            return k
        return v


class CapacityVerdictLiveAttnBackend(AttentionBackend):
    """Verdicts on geometry, on the shared allocator's capacity, or on the pool of this forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.paged = model_runner.page_size > 1
        self.roomy = model_runner.token_to_kv_pool_allocator.size > 1 << 16

    def init_forward_metadata(self, forward_batch):
        self.has_window_now = getattr(self.token_to_kv_pool, "size_swa", 0) > 0

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.has_window_now and self.paged and self.roomy:
            return q
        return k
