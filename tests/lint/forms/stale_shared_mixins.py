"""Code shared by several compositions (a mixin, a common base) runs as each class built on it:
a read there is a stale flag when one composition keeps the flag, though another makes the same
name a live property. Shared code all of whose compositions keep the name live is clean."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class _SharedPlanBase(AttentionBackend):
    def init_forward_metadata(self, forward_batch):
        if self.windowed:  # expect: KVP003
            forward_batch.translate = True

    def _window_rows(self, forward_batch):
        return forward_batch.rows if getattr(self, "windowed", False) else None  # expect: KVP003


class KeptPlanAttnBackend(_SharedPlanBase):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")  # expect: KVP002


class LivePlanAttnBackend(_SharedPlanBase):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def windowed(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class _LiveProbeMixin:
    @property
    def paged_swa(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class _PagedPlanMixin:
    def _plan(self, forward_batch):
        if self.paged_swa:
            forward_batch.translate = True


class RefreshedProbeMixin:
    def init_forward_metadata(self, forward_batch):
        self.paged_swa = isinstance(self.token_to_kv_pool, SWAKVPool)
        self._plan(forward_batch)


class LivePagedAttnBackend(_PagedPlanMixin, _LiveProbeMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool


class RefreshedPagedAttnBackend(RefreshedProbeMixin, _PagedPlanMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
