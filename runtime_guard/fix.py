"""The fix (``SGLANG_POOLGUARD_FIX=1``): a backend's SWA state follows the pool it reads.

One mechanism for every backend in ``runtime_guard.backends``: before each metadata build,
CUDA-graph state allocation, KV write-buffer hand-out and launch, the state the table names is
re-derived from one resolver (upstream PR #27491's semantics, evaluated on the live pool with
the backend's own SWA test): the active pool if it is an SWA pool; ``None`` for a draft worker
that is not FROZEN_KV MTP (an EAGLE-style draft owns a separate pool); otherwise the
allocator's pool when that is an SWA pool (a FROZEN_KV draft outside its target view, e.g.
while CUDA-graph buffers are sized). Flags become ``pool is not None`` (and the pool has SWA
layers), cached mappings the pool's own mapping (None where the translator translates),
helper copies the pool, bound-method copies the pool's method, aliases the active pool. A
wrapper's pool is propagated to its inner backends, which are then fixed in turn; the runner's
``KVIndexTranslator`` is replaced, for this backend, by one built over the active pool
(built once per pool, kept). Plain attribute writes; no torch, no SGLang import.
"""

from __future__ import annotations

from typing import Any, Optional

from runtime_guard.backends import BackendSpec, spec_for
from runtime_guard.checks import (
    RunnerFacts,
    active_pool,
    allocator_swa_pool,
    inner_backends,
    runner_facts,
    swa_flag,
    translator_mismatch,
)
from runtime_guard.pools import is_swa_kv_pool

_TRANSLATORS = "_poolguard_translators"  # backend.__dict__: the translators built per pool


def resolve_swa_pool(active: Any, facts: Optional[RunnerFacts], is_swa=is_swa_kv_pool) -> Any:
    """PR #27491's resolution of the SWA pool for a backend reading ``active``, with
    ``is_swa`` the backend's own test for an SWA pool."""
    if is_swa(active):
        return active
    if facts is None or (facts.is_draft and not facts.frozen_kv):
        return None
    return allocator_swa_pool(facts, is_swa)


def follow_active_pool(backend: Any, forward_batch: Any = None,
                       spec: Optional[BackendSpec] = None) -> None:
    """Re-derive every SWA state attribute of ``backend`` (and of the backends it holds)."""
    spec = spec or spec_for(type(backend))
    if spec.children:
        for child in getattr(backend, spec.children, None) or ():
            follow_active_pool(child, forward_batch)
        return
    active = active_pool(backend, forward_batch)
    for _, inner in inner_backends(backend, spec) if spec.inner else ():
        if active is not None and "token_to_kv_pool" in vars(inner):
            inner.token_to_kv_pool = active  # what the wrapper's swap did not propagate
        follow_active_pool(inner, forward_batch)
    facts = runner_facts(backend)
    pool = resolve_swa_pool(active, facts, spec.is_swa)
    translator = follow_translator(backend, active, facts)
    for attr in spec.pool_attrs:
        backend.__dict__[attr] = pool
    for path in spec.pool_copies:
        _set_path(backend, path, pool)
    flag = swa_flag(pool, spec)
    for attr in spec.flag_attrs:
        _set_flag(backend, attr, flag)
    mapping = getattr(pool, "full_to_swa_index_mapping", None)
    if getattr(translator, "is_translating", False):
        mapping = None  # a translating (unified) pool has no token-level mapping to cache
    for attr in spec.mapping_attrs:
        backend.__dict__[attr] = mapping
    for path, method in spec.bound_copies:
        _set_path(backend, path, getattr(pool, method) if flag else None)
    for path in spec.pool_aliases:
        _set_path(backend, path, active)


def follow_translator(backend: Any, active: Any, facts: Optional[RunnerFacts]) -> Any:
    """Give ``backend`` a ``KVIndexTranslator`` built over ``active`` (the runner's own one
    when it matches) and return it."""
    translator = getattr(backend, "__dict__", {}).get("kv_index_translator")
    if translator is None or active is None or not hasattr(translator, "space"):
        return translator
    if translator_mismatch(translator, active, facts) is None:
        return translator
    built = backend.__dict__.setdefault(_TRANSLATORS, {"original": translator})
    original = built["original"]
    chosen = original if translator_mismatch(original, active, facts) is None else None
    if chosen is None:
        entry = built.get(id(active))
        chosen = entry[1] if entry is not None and entry[0] is active else None
    if chosen is None:
        chosen = _translator_for(original, active, facts)
        if chosen is None:
            return translator  # cannot build one here: the guard reports the mismatch
        built[id(active)] = (active, chosen)
    backend.__dict__["kv_index_translator"] = chosen
    return chosen


def _translator_for(original: Any, pool: Any, facts: Optional[RunnerFacts]) -> Any:
    """A translator of ``original``'s own class over ``pool``, as the runner builds one."""
    try:
        return type(original)(
            req_to_token=original.req_to_token,
            token_to_kv_pool_allocator=getattr(facts, "allocator", None),
            token_to_kv_pool=pool,
            page_size=original.page_size,
            device=original.device,
            is_draft_worker=bool(getattr(facts, "is_draft", False)),
        )
    except Exception:  # another SGLang release's signature: leave it to the guard
        return None


def _set_path(backend: Any, path: str, value: Any) -> None:
    holder_name, _, attr = path.rpartition(".")
    holder = backend.__dict__.get(holder_name) if holder_name else backend
    if holder is not None and attr in getattr(holder, "__dict__", {}):
        holder.__dict__[attr] = value


def _set_flag(backend: Any, attr: str, value: Any) -> None:
    # A property (the fixed trtllm class derives its flag) wins over the instance dict.
    if isinstance(getattr(type(backend), attr, None), property):
        return
    backend.__dict__[attr] = value
