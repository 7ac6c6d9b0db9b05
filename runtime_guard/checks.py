"""Pool-identity, flag and layer-routing checks over a backend object (design §4).

Plain functions: they read attributes of whatever backend, pools and forward batch they are
given and import neither torch nor SGLang, so they run anywhere, cost O(1) per call and never
touch device memory. Whether a pool is an SWA pool is the backend's own ``isinstance`` test
(its row's ``is_swa``, ``runtime_guard.pools``). Beside the backend's own attributes they
check the state a launch reaches through other objects: helpers' copies of the pool and bound
methods of it (``belongs_to``), the runner's ``KVIndexTranslator`` (``translator_problem``)
and a wrapper's inner backends, which must read the wrapper's pool.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from runtime_guard.backends import BackendSpec, spec_for
from runtime_guard.errors import SWAPoolMismatchError
from runtime_guard.pools import (
    fused_draft_host,
    is_base_swa_kv_pool,
    is_unified_allocator,
    routes_window_layers,
)


class Problem(NamedTuple):
    """One violated invariant: a short ``kind`` (used as the log-once site), the message, and
    whether the launch reads the inconsistent state (``runtime_guard.liveness``)."""

    kind: str
    message: str
    live: bool = True


def is_swa_pool(pool: Any) -> bool:
    """True when ``pool`` is an SGLang SWA KV pool of any kind (a ``BaseSWAKVPool``)."""
    return is_base_swa_kv_pool(pool)


def belongs_to(value: Any, pool: Any) -> bool:
    """``value`` is ``pool`` itself or a method bound to it (``pool.translate_loc_...``)."""
    return value is pool or (value is not None and getattr(value, "__self__", None) is pool)


class RunnerFacts(NamedTuple):
    """What a backend's ``__init__`` saw of its model runner (recorded by the init hook):
    the fix's resolver needs role and allocator; messages name role and algorithm."""

    is_draft: bool
    frozen_kv: bool
    allocator: Any
    role: str
    algorithm: Optional[str]
    own_pool: Any = None  # the runner's own pool (the one its KVIndexTranslator is built from)


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
        own_pool=getattr(model_runner, "token_to_kv_pool", None),
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
    the pool the launch reads, a pool attribute (or a helper's copy, or a bound method of it)
    is ``active`` when the backend's own test calls ``active`` an SWA pool and ``None``
    otherwise; a flag says the same; a cached mapping is ``active``'s; an alias is ``active``;
    the runner's translator was built over ``active``; an SWA layer gets the SWA page table. A
    wrapper's inner backends must read ``active`` and are checked in turn; multi-step draft
    backends are checked through each step backend.
    """
    spec = spec or spec_for(type(backend))
    if spec.children:
        return _first(find_backend_problem(child, layer_id, forward_batch)
                      for child in getattr(backend, spec.children, None) or ())
    active = active_pool(backend, forward_batch)
    if active is None:
        return None
    active_is_swa = spec.is_swa(active)
    problem = _pool_problem(backend, spec, layer_id, active, active_is_swa)
    if problem is None:
        for attr in spec.flag_attrs:  # a plain loop: this runs before every launch
            problem = _flag_problem(backend, spec, attr, layer_id, active, active_is_swa)
            if problem is not None:
                return problem
    # Each further check only where the row names such state (the common rows name none).
    if problem is None and spec.bound_copies:
        problem = _bound_problem(backend, spec, layer_id, active)
    if problem is None and spec.pool_aliases:
        problem = _alias_problem(backend, spec, layer_id, active)
    if problem is None and getattr(backend, "kv_index_translator", None) is not None:
        problem = translator_problem(backend, active, layer_id)
    if problem is None and spec.inner:
        problem = _inner_problem(backend, spec, layer_id, forward_batch, active)
    if problem is None and active_is_swa:
        return _mapping_problem(backend, spec, layer_id, active) or _route_problem(
            backend, spec, layer_id, active)
    return problem


def _pool_problem(backend, spec, layer_id, active, active_is_swa) -> Optional[Problem]:
    """The resolved SWA pool, and helpers' copies of it, must be ``active`` or None."""
    expected = active if active_is_swa else None
    state = getattr(backend, "__dict__", None) or {}
    for attr in spec.pool_attrs:
        value = state.get(attr, expected)
        if value is not expected and not _frozen_draft_outside_view(backend, active_is_swa, value):
            return Problem("pool", _pool_message(backend, layer_id, active, attr, value,
                                                 active_is_swa))
    for path, value in held(backend, spec.pool_copies) if spec.pool_copies else ():
        if value is not expected and not _frozen_draft_outside_view(backend, active_is_swa, value):
            return Problem("pool", _pool_message(backend, layer_id, active, path, value,
                                                 active_is_swa))
    return None


def _first(problems) -> Optional[Problem]:
    return next((problem for problem in problems if problem is not None), None)


def held(backend: Any, paths: tuple):
    """``(path, value)`` for each ``"attr"`` / ``"helper.attr"`` path the backend's instance
    state has (a helper that is None or lacks the attribute is skipped)."""
    state = getattr(backend, "__dict__", None) or {}
    for path in paths:
        holder_name, _, attr = path.rpartition(".")
        holder = state.get(holder_name) if holder_name else backend
        holder_state = getattr(holder, "__dict__", None) or {}
        if attr in holder_state:
            yield path, holder_state[attr]


def _bound_problem(backend, spec, layer_id, active) -> Optional[Problem]:
    """A helper's bound method of the SWA pool (FlashAttention's local-attention
    ``swa_translate``) must be bound to the pool the backend's flag derives from ``active``."""
    expected = active if swa_flag(active, spec) else None
    for path, method in held(backend, [path for path, _ in spec.bound_copies]):
        if belongs_to(method, expected):
            continue
        owner = getattr(method, "__self__", None)
        if _frozen_draft_outside_view(backend, expected is not None, owner):
            continue
        return Problem("bound", (
            f"poolguard: {describe_backend(backend, layer_id, active)}: backend.{path} is "
            f"{_method_text(method)}, expected {_method_text(expected, 'a method of ')}; the "
            f"bound copy was taken from the pool at __init__. Re-bind it per launch or use "
            f"SGLANG_POOLGUARD_FIX=1."))
    return None


def _method_text(method: Any, prefix: str = "") -> str:
    if method is None:
        return "None"
    owner = getattr(method, "__self__", method)
    return f"{prefix}{describe_pool(owner)}" if prefix else (
        f"{getattr(method, '__name__', 'a method')} of {describe_pool(owner)}")


def _alias_problem(backend, spec, layer_id, active) -> Optional[Problem]:
    for path, pool in held(backend, spec.pool_aliases):
        if pool is not active:
            return Problem("alias", (
                f"poolguard: {describe_backend(backend, layer_id, active)}: backend.{path} is "
                f"{describe_pool(pool)} but the launch reads {describe_pool(active)} "
                f"(backend.token_to_kv_pool); the alias was copied at __init__. Read "
                f"self.token_to_kv_pool per launch or use SGLANG_POOLGUARD_FIX=1."))
    return None


def inner_backends(backend: Any, spec: BackendSpec):
    """``(path, inner backend)`` for every backend a wrapper holds (lists included)."""
    state = getattr(backend, "__dict__", None) or {}
    for attr in spec.inner:
        value = state.get(attr)
        items = value if isinstance(value, (list, tuple)) else (value,)
        for index, inner in enumerate(items):
            if inner is not None and inner is not backend:
                yield (f"{attr}[{index}]" if items is value else attr), inner


def _inner_problem(backend, spec, layer_id, forward_batch, active) -> Optional[Problem]:
    """A wrapper's swapped pool must reach every inner backend, whose own state is then
    checked against it (reading the inner's pool alone sees a consistent but wrong state)."""
    for path, inner in inner_backends(backend, spec):
        inner_pool = getattr(inner, "token_to_kv_pool", None)
        if inner_pool is not None and inner_pool is not active:
            return Problem("wrapper", (
                f"poolguard: {describe_backend(backend, layer_id, active)}: the launch reads "
                f"{describe_pool(active)} but the inner backend {path} "
                f"({type(inner).__name__}) reads {describe_pool(inner_pool)} "
                f"(backend.{path}.token_to_kv_pool, copied at __init__); a pool swap on the "
                f"wrapper does not reach it. Propagate the swap or use SGLANG_POOLGUARD_FIX=1."))
        problem = find_backend_problem(inner, layer_id, forward_batch)
        if problem is not None:
            prefix = f"poolguard: {type(backend).__name__}.{path} -> "
            return Problem(problem.kind, problem.message.replace("poolguard: ", prefix, 1))
    return None


def window_space(translator: Any) -> Any:
    """The translator's sliding-window id space, or None when it has none."""
    kind = getattr(translator, "window_kv_kind", None)
    return translator.space(kind) if getattr(kind, "name", "") == "SLIDING_WINDOW" else None


def translator_problem(backend: Any, active: Any, layer_id: Optional[int] = None,
                       ) -> Optional[Problem]:
    """The runner's ``KVIndexTranslator`` (built once, from the runner's own pool) must
    describe ``active``: SWA write ids and ``window_kv_kind`` come from it. Decidable here:
    its sliding-window space is bound to ``active`` (or to the unified allocator serving
    ``active``); it has one when ``active`` routes window layers; it translates when
    ``active`` is the pool of a unified (virtual-id) allocator."""
    translator = getattr(backend, "kv_index_translator", None)
    if translator is None or not hasattr(translator, "space"):
        return None
    facts = runner_facts(backend)
    wrong = translator_mismatch(translator, active, facts)
    if wrong is None:
        return None
    built = f" {describe_pool(facts.own_pool)}" if facts and facts.own_pool is not None else ""
    return Problem("translator", (
        f"poolguard: {describe_backend(backend, layer_id, active)}: backend.kv_index_translator "
        f"{wrong}, but the launch reads {describe_pool(active)}; it was built once from the "
        f"runner's own pool{built}. Build one per pool or use SGLANG_POOLGUARD_FIX=1."))


def translator_mismatch(translator: Any, active: Any, facts: Any) -> Optional[str]:
    space = window_space(translator)
    owner = getattr(getattr(space, "write", None), "__self__", None)
    if translator.is_translating:
        if space is None or owner is None or not hasattr(owner, "get_kvcache"):
            return None  # keyed on the allocator, not a pool: nothing more is decidable
        if owner.get_kvcache() is active or fused_draft_host(active) is owner:
            return None
        return f"translates window ids with the allocator of {describe_pool(owner.get_kvcache())}"
    allocator = getattr(facts, "allocator", None)
    if is_unified_allocator(allocator) and allocator.get_kvcache() is active:
        return "does not translate (virtual ids would reach kernels as physical ids)"
    if space is not None:
        return None if owner is active or owner is None else (
            f"maps SWA write ids with {describe_pool(owner)}")
    if routes_window_layers(active):
        return "has no sliding-window id space (SWA write ids None, window_kv_kind FULL)"
    return None


def _frozen_draft_outside_view(backend: Any, active_is_swa: bool, pool: Any) -> bool:
    """A FROZEN_KV draft may hold the allocator's SWA pool while its own pool is active: it
    only launches inside the target view, which makes that pool the active one."""
    facts = runner_facts(backend)
    if active_is_swa or pool is None or facts is None or not (facts.is_draft and facts.frozen_kv):
        return False
    return pool is allocator_swa_pool(facts)


def allocator_swa_pool(facts: Optional[RunnerFacts], is_swa=is_base_swa_kv_pool) -> Any:
    """The allocator's pool when it is an SWA pool (tolerates allocators without get_kvcache)."""
    get_kvcache = getattr(getattr(facts, "allocator", None), "get_kvcache", None)
    pool = get_kvcache() if callable(get_kvcache) else None
    return pool if is_swa(pool) else None


def swa_flag(pool: Any, spec: BackendSpec) -> bool:
    """The flag value the backend derives from ``pool``: an SWA pool by its own test, with
    SWA layers."""
    return pool is not None and spec.is_swa(pool) and getattr(pool, "swa_layer_nums", 1) != 0


def _flag_problem(backend, spec, attr, layer_id, active, active_is_swa) -> Optional[Problem]:
    flag = getattr(backend, attr, None)
    if flag is None or bool(flag) == active_is_swa:
        return None
    if not flag and getattr(active, "swa_layer_nums", 1) == 0:
        return None  # an SWA pool without SWA layers: nothing would be translated
    first = next((value for _, value in held(backend, spec.pool_attrs)), None)
    if flag and _frozen_draft_outside_view(backend, active_is_swa, first):
        return None
    return Problem("flag", _flag_message(backend, layer_id, active, attr, flag))


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
    if layer_id is None or not spec.separate_swa_table:
        return None
    mapping = getattr(active, "layers_mapping", {}).get(layer_id)
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


def _pool_message(backend, layer_id, active, attr, swa, active_is_swa) -> str:
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
