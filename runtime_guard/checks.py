"""Pool-identity, flag and layer-routing checks over a backend object (design §4).

Plain functions: they read attributes of whatever backend, pools and forward batch they are
given and import neither torch nor SGLang, so they run anywhere, cost O(1) per call and never
touch device memory. SWA pools are recognised by class name in the MRO (``BaseSWAKVPool`` /
``SWAKVPool``), which works across SGLang versions without importing them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from runtime_guard.errors import SWAPoolMismatchError

_SWA_BASE_NAMES = frozenset({"BaseSWAKVPool", "SWAKVPool"})
_swa_type_cache: dict = {}


class Problem(NamedTuple):
    """One violated invariant: a short ``kind`` (used as the log-once site) and the message."""

    kind: str
    message: str


def is_swa_pool(pool: Any) -> bool:
    """True when ``pool`` is an SGLang SWA KV pool (a ``BaseSWAKVPool`` subclass)."""
    if pool is None:
        return False
    cls = type(pool)
    known = _swa_type_cache.get(cls)
    if known is None:
        known = any(base.__name__ in _SWA_BASE_NAMES for base in cls.__mro__)
        _swa_type_cache[cls] = known
    return known


def active_pool(backend: Any, forward_batch: Any = None) -> Any:
    """The pool the next launch reads: the backend's own attribute (SGLang >= 0.5.13, swapped by
    ``frozen_kv_target_view``) or, where backends have none, the forward batch's."""
    pool = getattr(backend, "token_to_kv_pool", None)
    if pool is None and forward_batch is not None:
        pool = getattr(forward_batch, "token_to_kv_pool", None)
    return pool


def describe_pool(pool: Any) -> str:
    """``SWAKVPool id=0x7f.. size=256 size_swa=128`` — enough to tell two pools apart."""
    if pool is None:
        return "None"
    parts = [type(pool).__name__, f"id={id(pool):#x}"]
    for attr in ("size", "size_swa"):
        value = getattr(pool, attr, None)
        if isinstance(value, int):
            parts.append(f"{attr}={value}")
    return " ".join(parts)


def describe_backend(backend: Any, layer_id: Optional[int] = None, pool: Any = None) -> str:
    """Backend class, draft/target role, speculative algorithm and, when known, the layer."""
    role, algorithm = getattr(backend, "_poolguard_role", None) or ("role unknown", None)
    text = f"{type(backend).__name__} ({role}, speculative algorithm {algorithm or 'unknown'})"
    if layer_id is not None:
        text += f" layer {layer_id} ({layer_kind(pool, layer_id)})"
    return text


def layer_kind(pool: Any, layer_id: int) -> str:
    """``SWA`` or ``full`` per the pool's ``layers_mapping``; ``full`` for a non-SWA pool."""
    mapping = getattr(pool, "layers_mapping", None)
    if not mapping or layer_id not in mapping:
        return "full"
    return "SWA" if mapping[layer_id][1] else "full"


def find_backend_problem(
    backend: Any, layer_id: Optional[int] = None, forward_batch: Any = None
) -> Optional[Problem]:
    """Return the first violated invariant for the coming launch, or None when all hold.

    Invariant (needs no remembered state): with ``active`` the pool the launch reads,
    ``backend._swa_kv_pool`` is ``active`` when ``active`` is an SWA pool and ``None``
    otherwise; ``use_sliding_window_kv_pool`` agrees with it; an SWA layer gets the SWA table.
    """
    active = active_pool(backend, forward_batch)
    swa = getattr(backend, "_swa_kv_pool", None)
    active_is_swa = is_swa_pool(active)
    if active is not None and swa is not (active if active_is_swa else None):
        return Problem("pool", _pool_message(backend, layer_id, active, swa, active_is_swa))
    flag = getattr(backend, "use_sliding_window_kv_pool", None)
    if flag is not None and bool(flag) != (swa is not None):
        return Problem("flag", _flag_message(backend, layer_id, active, swa, flag))
    if layer_id is not None and active_is_swa:
        mapping = active.layers_mapping.get(layer_id)
        metadata = getattr(backend, "forward_metadata", None)
        if mapping is not None and mapping[1] and metadata is not None:
            if getattr(metadata, "swa_page_table", None) is None:
                return Problem("route", _route_message(backend, layer_id, active))
    return None


def verify_backend(backend: Any, layer_id: Optional[int] = None, forward_batch: Any = None) -> None:
    """Raise ``SWAPoolMismatchError`` if the backend's SWA state does not match the pool its
    next launch reads (identity, flag consistency and, given ``layer_id``, layer routing)."""
    problem = find_backend_problem(backend, layer_id, forward_batch)
    if problem is not None:
        raise SWAPoolMismatchError(problem.message)


def _pool_message(backend, layer_id, active, swa, active_is_swa) -> str:
    expected = (
        f"the active pool {describe_pool(active)}"
        if active_is_swa
        else f"None (the active pool {describe_pool(active)} is not an SWA pool)"
    )
    why = (
        "the pool was swapped after the backend cached its SWA state (FROZEN_KV MTP target "
        "view) — SWA layers would index the SWA buffer with full-pool page ids"
        if active_is_swa
        else "a non-SWA pool (e.g. an EAGLE draft's own pool) must not be translated with "
        "another pool's full->SWA mapping"
    )
    return (
        f"poolguard: {describe_backend(backend, layer_id, active)}: backend._swa_kv_pool is "
        f"{describe_pool(swa)}, expected {expected}; {why}. "
        f"Resolve it per launch or use SGLANG_POOLGUARD_FIX=1."
    )


def _flag_message(backend, layer_id, active, swa, flag) -> str:
    return (
        f"poolguard: {describe_backend(backend, layer_id, active or swa)}: "
        f"use_sliding_window_kv_pool={bool(flag)} but backend._swa_kv_pool is "
        f"{describe_pool(swa)}; the flag and the pool disagree, so code gated on the flag "
        f"translates (or skips translating) against the wrong index space."
    )


def _route_message(backend, layer_id, active) -> str:
    return (
        f"poolguard: {describe_backend(backend, layer_id, active)}: SWA layer {layer_id} would "
        f"be given the full page table (forward_metadata.swa_page_table is None) while reading "
        f"{describe_pool(active)}; expected the SWA page table."
    )
