"""The fix (``SGLANG_POOLGUARD_FIX=1``): a backend's SWA state follows the pool it reads.

One mechanism for every backend in ``runtime_guard.backends``: before each metadata build,
CUDA-graph state allocation and launch, the state attributes the table names are re-derived
from one resolver (upstream PR #27491's semantics, evaluated on the live pool): the active pool
if it is an SWA pool; ``None`` for a draft worker that is not FROZEN_KV MTP (an EAGLE-style draft
owns a separate pool); otherwise the allocator's pool when that is an SWA pool (a FROZEN_KV draft
outside its target view, e.g. while CUDA-graph buffers are sized). Flags become
``pool is not None`` (and the pool has SWA layers), cached mappings the pool's own mapping,
helper copies the pool. Plain attribute writes: O(1), no torch, no SGLang import.
"""

from __future__ import annotations

from typing import Any, Optional

from runtime_guard.backends import BackendSpec, spec_for
from runtime_guard.checks import (
    RunnerFacts,
    active_pool,
    allocator_swa_pool,
    is_swa_pool,
    runner_facts,
)


def resolve_swa_pool(active: Any, facts: Optional[RunnerFacts]) -> Any:
    """PR #27491's resolution of the SWA pool for a backend reading ``active``."""
    if is_swa_pool(active):
        return active
    if facts is None or (facts.is_draft and not facts.frozen_kv):
        return None
    return allocator_swa_pool(facts)


def swa_flag(pool: Any) -> bool:
    """The flag value SGLang's backends derive: an SWA pool that has SWA layers."""
    return pool is not None and getattr(pool, "swa_layer_nums", 1) != 0


def follow_active_pool(backend: Any, forward_batch: Any = None,
                       spec: Optional[BackendSpec] = None) -> None:
    """Re-derive every SWA state attribute of ``backend`` (and its per-step backends)."""
    spec = spec or spec_for(type(backend))
    if spec.children:
        for child in getattr(backend, spec.children, None) or ():
            follow_active_pool(child, forward_batch)
        return
    pool = resolve_swa_pool(active_pool(backend, forward_batch), runner_facts(backend))
    state = backend.__dict__
    for attr in spec.pool_attrs:
        state[attr] = pool
    flag = swa_flag(pool)
    for attr in spec.flag_attrs:
        _set(backend, attr, flag)
    mapping = getattr(pool, "full_to_swa_index_mapping", None)
    if getattr(getattr(backend, "kv_index_translator", None), "is_translating", False):
        mapping = None  # a translating (unified) pool has no token-level mapping to cache
    for attr in spec.mapping_attrs:
        state[attr] = mapping
    for holder, attr in spec.pool_copies:
        helper = getattr(backend, holder, None)
        if helper is not None and attr in getattr(helper, "__dict__", {}):
            helper.__dict__[attr] = pool


def _set(backend: Any, attr: str, value: Any) -> None:
    # A property (the fixed trtllm class derives its flag) wins over the instance dict.
    if isinstance(getattr(type(backend), attr, None), property):
        return
    backend.__dict__[attr] = value
