"""Pool-identity, flag and layer-routing checks over a backend object (design §4).

Plain functions: they read attributes of whatever backend, pools and forward batch they are
given and import neither torch nor SGLang, so they run anywhere, cost O(1) per call and never
touch device memory. SWA pools are recognised by class name in the MRO (``BaseSWAKVPool`` /
``SWAKVPool``), which works across SGLang versions without importing them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from runtime_guard.backends import LAYER_PAGE_TABLE, BackendSpec, spec_for
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


class RunnerFacts(NamedTuple):
    """What a backend's ``__init__`` saw of its model runner (recorded by the init hook):
    the fix's resolver needs role and allocator; messages name role and algorithm."""

    is_draft: bool
    frozen_kv: bool
    allocator: Any
    role: str
    algorithm: Optional[str]


RUNNER = "_poolguard_runner"  # backend.__dict__ key holding its RunnerFacts


def _is_frozen_kv_mtp(algorithm: Any) -> bool:
    probe = getattr(algorithm, "is_frozen_kv_mtp", None)  # absent before FROZEN_KV MTP existed
    return bool(probe()) if callable(probe) else False


def facts_of(model_runner: Any) -> RunnerFacts:
    """Draft/target, the speculative algorithm and the allocator of ``model_runner``."""
    is_draft = getattr(model_runner, "is_draft_worker", None)
    algorithm = getattr(model_runner, "spec_algorithm", None)
    return RunnerFacts(
        is_draft=bool(is_draft),
        frozen_kv=_is_frozen_kv_mtp(algorithm),
        allocator=getattr(model_runner, "token_to_kv_pool_allocator", None),
        role="role unknown" if is_draft is None else ("draft" if is_draft else "target"),
        algorithm=getattr(algorithm, "name", algorithm),
    )


def record_runner(backend: Any, model_runner: Any) -> None:
    """Remember ``facts_of(model_runner)`` on ``backend`` (the init hook calls this)."""
    backend.__dict__[RUNNER] = facts_of(model_runner)


def runner_facts(backend: Any) -> Optional[RunnerFacts]:
    """The facts ``record_runner`` stored on ``backend``, or None."""
    return getattr(backend, "__dict__", {}).get(RUNNER)


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
    facts = runner_facts(backend)
    role, algorithm = (facts.role, facts.algorithm) if facts else ("role unknown", None)
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
    backend: Any, layer_id: Optional[int] = None, forward_batch: Any = None,
    spec: Optional[BackendSpec] = None,
) -> Optional[Problem]:
    """Return the first violated invariant for the coming launch, or None when all hold.

    Invariant (needs no remembered state), over the attributes ``spec`` names: with ``active``
    the pool the launch reads, a pool attribute is ``active`` when ``active`` is an SWA pool and
    ``None`` otherwise; a flag says the same; a cached mapping is ``active``'s; an SWA layer
    gets the SWA page table. Multi-step draft backends are checked through each step backend.
    """
    spec = spec or spec_for(type(backend))
    if spec.children:
        for child in getattr(backend, spec.children, None) or ():
            problem = find_backend_problem(child, layer_id, forward_batch)
            if problem is not None:
                return problem
        return None
    active = active_pool(backend, forward_batch)
    if active is None:
        return None
    active_is_swa = is_swa_pool(active)
    state = vars(backend) if hasattr(backend, "__dict__") else {}
    expected = active if active_is_swa else None
    for holder, attr in _pool_holders(backend, spec, state):
        pool = holder.__dict__[attr]
        if pool is not expected and not _frozen_draft_outside_view(backend, active_is_swa, pool):
            name = attr if holder is backend else f"{_holder_name(backend, holder)}.{attr}"
            return Problem("pool", _pool_message(backend, layer_id, active, name, pool))
    for attr in spec.flag_attrs:
        problem = _flag_problem(backend, attr, layer_id, active, active_is_swa)
        if problem is not None:
            return problem
    if active_is_swa:
        return _mapping_problem(backend, spec, layer_id, active) or _route_problem(
            backend, spec, layer_id, active)
    return None


def _pool_holders(backend: Any, spec: BackendSpec, state: dict):
    """(object, attribute) for the backend's pool attributes and its helpers' copies."""
    for attr in spec.pool_attrs:
        if attr in state:
            yield backend, attr
    for holder_attr, attr in spec.pool_copies:
        holder = state.get(holder_attr)
        if holder is not None and attr in getattr(holder, "__dict__", ()):
            yield holder, attr


def _holder_name(backend: Any, holder: Any) -> str:
    return next(name for name, value in vars(backend).items() if value is holder)


def _frozen_draft_outside_view(backend: Any, active_is_swa: bool, pool: Any) -> bool:
    """A FROZEN_KV draft may hold the allocator's SWA pool while its own pool is active: it
    only launches inside the target view, which makes that pool the active one."""
    facts = runner_facts(backend)
    if active_is_swa or pool is None or facts is None or not (facts.is_draft and facts.frozen_kv):
        return False
    return pool is allocator_swa_pool(facts)


def allocator_swa_pool(facts: Optional[RunnerFacts]) -> Any:
    """The allocator's pool when it is an SWA pool (tolerates allocators without get_kvcache)."""
    get_kvcache = getattr(getattr(facts, "allocator", None), "get_kvcache", None)
    pool = get_kvcache() if callable(get_kvcache) else None
    return pool if is_swa_pool(pool) else None


def _flag_problem(backend, attr, layer_id, active, active_is_swa) -> Optional[Problem]:
    flag = getattr(backend, attr, None)
    if flag is None or bool(flag) == active_is_swa:
        return None
    if not flag and getattr(active, "swa_layer_nums", 1) == 0:
        return None  # an SWA pool without SWA layers: nothing would be translated
    if flag and _frozen_draft_outside_view(backend, active_is_swa, _first_pool(backend)):
        return None
    return Problem("flag", _flag_message(backend, layer_id, active, attr, flag))


def _first_pool(backend: Any) -> Any:
    spec = spec_for(type(backend))
    return getattr(backend, spec.pool_attrs[0], None) if spec.pool_attrs else None


def _mapping_problem(backend, spec, layer_id, active) -> Optional[Problem]:
    expected = getattr(active, "full_to_swa_index_mapping", None)
    for attr in spec.mapping_attrs:
        cached = getattr(backend, attr, None)
        if cached is not None and cached is not expected:
            return Problem("mapping", (
                f"poolguard: {describe_backend(backend, layer_id, active)}: backend.{attr} is "
                f"not the full->SWA mapping of the active pool {describe_pool(active)} (it was "
                f"cached from another pool); SWA page ids would be translated with the wrong "
                f"table. Read the mapping from the active pool or use SGLANG_POOLGUARD_FIX=1."))
    return None


def _route_problem(backend, spec, layer_id, active) -> Optional[Problem]:
    # Only where SWA layers must get a separate table (trtllm); other backends legitimately
    # leave it unset on some paths and are covered by the flag and bounds checks.
    if layer_id is None or spec.reader != LAYER_PAGE_TABLE:
        return None
    mapping = active.layers_mapping.get(layer_id)
    metadata = getattr(backend, "forward_metadata", None)
    if mapping is None or not mapping[1] or metadata is None or not hasattr(
            metadata, "swa_page_table"):
        return None
    swa_table = metadata.swa_page_table
    if swa_table is None or swa_table is getattr(metadata, "page_table", None):
        return Problem("route", _route_message(backend, layer_id, active, swa_table))
    return None


def verify_backend(backend: Any, layer_id: Optional[int] = None, forward_batch: Any = None) -> None:
    """Raise ``SWAPoolMismatchError`` if the backend's SWA state does not match the pool its
    next launch reads (identity, flags, cached mappings and, given ``layer_id``, layer
    routing), for any backend class ``runtime_guard.backends`` describes."""
    problem = find_backend_problem(backend, layer_id, forward_batch)
    if problem is not None:
        raise SWAPoolMismatchError(problem.message)


def _pool_message(backend, layer_id, active, attr, swa) -> str:
    active_is_swa = is_swa_pool(active)
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
        f"poolguard: {describe_backend(backend, layer_id, active)}: backend.{attr} is "
        f"{describe_pool(swa)}, expected {expected}; {why}. "
        f"Resolve it per launch or use SGLANG_POOLGUARD_FIX=1."
    )


def _flag_message(backend, layer_id, active, attr, flag) -> str:
    return (
        f"poolguard: {describe_backend(backend, layer_id, active)}: {attr}={bool(flag)} but "
        f"the pool the launch reads is {describe_pool(active)}; code gated on the flag "
        + ("translates ids of a non-SWA pool with an SWA mapping" if flag else
           "skips the full->SWA translation, so SWA layers get full-pool ids")
        + ". Derive the flag from the active pool or use SGLANG_POOLGUARD_FIX=1."
    )


def _route_message(backend, layer_id, active, swa_table) -> str:
    why = "is None" if swa_table is None else "is the full page table itself"
    return (
        f"poolguard: {describe_backend(backend, layer_id, active)}: SWA layer {layer_id} would "
        f"be given the full page table (forward_metadata.swa_page_table {why}) while reading "
        f"{describe_pool(active)}; expected the SWA page table."
    )
