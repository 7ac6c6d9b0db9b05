"""Helpers handed a backend that is already built: those keeping pool state on it are reported
at their own store, whoever calls them, but one a backend hands ``self`` to (at that call);
one keeps geometry only, one runs per forward; and the allocator-consulting resolver."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

if TYPE_CHECKING:
    from .backends import HandedAttnBackend


def attach_pool(backend, model_runner) -> None:
    backend.kept_pool = model_runner.token_to_kv_pool  # expect: KVP001


def attach_verdict(target: "HandedAttnBackend", model_runner) -> None:
    target.hybrid_at_build = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002


def remember_pool(backend, model_runner) -> None:
    backend.pool_at_build = model_runner.token_to_kv_pool  # (the backend's call is the finding)


def stamp_window(backend, model_runner) -> None:
    backend.sliding_window_size = model_runner.sliding_window_size
    backend.page_size = model_runner.page_size


def note_forward(attn_backend, forward_batch) -> None:
    attn_backend.last_pool = attn_backend.token_to_kv_pool
    attn_backend.last_batch = forward_batch.batch_size


def resolve_swa_kv_pool(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None
