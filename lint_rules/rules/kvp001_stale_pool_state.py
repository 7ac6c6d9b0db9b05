"""KVP001: pool state kept across forwards, taken from a pool that the draft swap rebinds."""
from __future__ import annotations

import ast
import weakref
from textwrap import dedent
from typing import Iterator

from lint_rules.options import Options
from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules._facts import (
    _builds_backend,
    _by_lineage,
    is_chosen_verdict,
    is_flag_table,
    is_named_swa_test,
    is_swap_point,
    shown_sink,
)
from lint_rules.rules._flow import (
    CHOICE,
    GATED,
    INNER,
    KIND,
    POOL,
    RECORD,
    RUNNER,
    SIZE,
    STALE,
    STATE,
    SWA,
    TYPE,
    TYPE_TESTS,
    Taint,
    attribute_alias,
    class_nodes,
    is_runner_copy,
    last_name,
    params_of,
    nodes_under,
    self_attr,
    swap_check_sides,
)
from lint_rules.rules._vocab import ACTIVE_POOL


# class node -> its anchors: the file's own analysis and the codemod's same-file one (and the
# rules of each) ask about the same tree
_ANCHORS: "weakref.WeakKeyDictionary[ast.ClassDef, frozenset]" = weakref.WeakKeyDictionary()


def _identity_anchors(cls_node: ast.ClassDef) -> frozenset:
    """Attributes that hold a pool without being used as one: the backing field of a
    ``token_to_kv_pool`` property (``return self._pool``: that store is the swap point under
    another name) and anchors read only in ``is``/``is not`` against ``self.token_to_kv_pool``
    (a kept pool compared with the live one is how a swap is noticed, not stale state)."""
    found = _ANCHORS.get(cls_node)
    if found is None:
        found = _ANCHORS[cls_node] = _find_anchors(cls_node)
    return found


def _find_anchors(cls_node: ast.ClassDef) -> frozenset:
    """``_identity_anchors``, from one list of the class's nodes (a function before those
    inside it)."""
    backing, compared, read, functions = set(), set(), set(), []
    nodes = class_nodes(cls_node)
    for node in nodes:
        kind = type(node)  # (one test for most nodes)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            functions.append(node)
            if kind is ast.FunctionDef and node.name == ACTIVE_POOL and any(
                    isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
                returned = [s.value for s in node.body if isinstance(s, ast.Return)]
                backing.update(a for a in map(self_attr, returned) if a)
        elif kind is ast.Compare:
            for side in swap_check_sides(node):
                side = side.func if isinstance(side, ast.Call) and not side.args else side
                compared.add(id(side))
    if not compared:  # no identity check of the live pool: no local is one, no read only one
        return frozenset(backing)
    for function in functions:  # ``seen = self._ref()`` then only ``seen is ...`` (outer first)
        _compared_through_locals(function, compared)
    uses = {}
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"):
            attr = self_attr(node)
            if attr:
                read.add(attr)
                uses.setdefault(attr, []).append(id(node) in compared)
    anchors = {attr for attr, only in uses.items() if all(only)}
    return frozenset(backing | (anchors & read))


def _compared_through_locals(function: ast.AST, compared: set) -> None:
    """Mark ``self.X`` (or ``self.X()``) bound to a local that is only ever compared by
    identity as compared itself."""
    loads: dict = {}
    nodes = nodes_under(function)
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append(id(node) in compared)
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = node.value
            value = value.func if isinstance(value, ast.Call) and not value.args else value
            uses = loads.get(node.targets[0].id)
            if uses and all(uses):
                compared.add(id(value))


def _variant(store) -> tuple:
    """``(template, subject)`` for what the store keeps: pool state, or a value chosen by a
    stale decision (a runner flag, a non-SWA type test, a stored stale flag, a branch of a
    type test of the pool itself)."""
    bits, shown = store.bits, shown_sink(store)
    if bits & INNER and not bits & ~(INNER | POOL | STALE | RECORD):
        return INNER_BACKEND, shown
    if bits & STATE and _runner_read(store.value):
        return RUNNER_BUILT, shown
    if bits & SIZE and not bits & (STATE & ~SWA):
        return (SIZED if bits & SWA else CAPACITY), shown
    if bits & RECORD and bits & TYPE and not bits & (POOL | INNER) and store.value is not None \
            and any(map(_builds_backend, nodes_under(store.value))):  # a backend built here
        # (anywhere in what is stored: [Step(..., window_kv=v) for ...]) handed a verdict
        return HANDED_DECISION, shown
    if bits & STATE:
        return None, f"{shown} caches pool state in {store.method}()"
    if bits & RUNNER:
        return RUNNER_CHOICE, shown
    if bits & KIND:
        return POOL_TYPE, shown
    if bits & GATED:
        # (made in a branch of a type test, not of a stored flag nor of the runner's)
        test = store.under & TYPE and not store.under & (GATED | RUNNER)
        return (MADE_UNDER_TEST if test else MADE_UNDER_FLAG), shown
    return None, f"{shown} caches pool state in {store.method}()"


def _kept_by_design(store, cls, template, options: Options) -> bool:
    """What SGLang requires a class to hold, not a copy of its own: runner-built state in a
    class that only follows the backend protocol (EAGLE's multi-step draft wrappers, which
    FROZEN_KV MTP never swaps), or the same attribute forwarded from a backend the method is
    given (``self.kv_index_translator = primary.kv_index_translator``: the inner's store is
    the finding, and bind_and_verify_backends asserts the wrapper carries that very object)."""
    if template is RUNNER_BUILT:
        return not _by_lineage(cls, options)
    value, function = store.value, cls.methods.get(store.method)
    if not (isinstance(value, ast.Attribute) and value.attr == store.attr
            and isinstance(value.value, ast.Name) and function is not None):
        return False
    given = value.value.id
    return given in params_of(function) and not given.endswith("runner")


def _made_from_runner_object(store, cls, facts, options: Options, seen: dict):
    """``self.<root>`` when what ``store`` keeps was made from a runner-built object the class
    keeps (``self.kv_read_tables = self.kv_index_translator.make_capture_tables(...)``, a
    buffer made under ``if self.kv_index_translator.is_translating:`` outside per-forward
    code): swapping that object with the pool leaves this as it was made. ``""`` when the
    object is kept by design, None when no such object made it. ``seen`` keeps each place's
    answer for ``cls``: the elements of one unpacked value share it (a, *b, c = <display>)."""
    places = [store.value] if store.value is not None else []
    places += facts.tests_around(cls, store) if store.bits & GATED else []
    for place in places:
        if place not in seen:  # (by identity: nodes hash so)
            seen[place] = _made_in(place, cls, facts, options)
        if seen[place] is not None:
            return seen[place]
    return None


def _made_in(place, cls, facts, options: Options):
    """What ``_made_from_runner_object`` answers for one place of ``cls``."""
    for node in ast.walk(place):
        root = self_attr(node) if isinstance(node, ast.Attribute) else None
        if not root:
            continue
        kept = [s for s in facts.stores_of(cls, root) if s.sink and s.bits & STATE
                and _runner_read(s.value)]
        if kept:
            return "" if _kept_by_design(kept[0], cls, RUNNER_BUILT, options) else root
        held = [Taint(s.stores.get(root, 0)) for c in cls.family for s in c.foreign]
        if any(bits & STATE and bits & RECORD for bits in held):
            return root  # kept by a base of another module (its store is found there)
    return None


def _runner_read(value) -> bool:
    """``model_runner.<x>`` / ``self.model_runner.<x>`` in any spelling of the read: what the
    runner built once from its own pool (only such reads carry pool state off a runner)."""
    alias = attribute_alias(value) if value is not None else None
    while alias is not None:  # (runner.kv_index_translator.write_ids: off what it built)
        holder, name = alias
        if last_name(holder).endswith("runner") and (
                isinstance(holder, ast.Name) or self_attr(holder) is not None):
            return name != ACTIVE_POOL
        alias = attribute_alias(holder)
    return False


# SGLang asserts every backend carries the runner's one translator (bind_and_verify_backends):
# building another breaks boot; what keeps it right is swapping it along with the pool, where
# speculative/frozen_kv_mtp_utils.py (frozen_kv_target_view, target_kv_pool_view) swaps the pool
RUNNER_BUILT = ("{subject} is the runner's, built on its pool; FROZEN_KV swaps only the pool: "
                "swap it too in frozen_kv_mtp_utils")
RUNNER_CHOICE = "{subject} follows the runner's SWA flag, blind to FROZEN_KV: {test_pool}"
POOL_TYPE = ("{subject} decides the pool's type once: FROZEN_KV MTP swaps pools, test "
             "self.token_to_kv_pool where used")
HANDED_DECISION = ("{subject} holds a backend handed a pool type test made once; FROZEN_KV MTP "
                   "swaps pools: let it test its self.token_to_kv_pool per forward")
INNER_BACKEND = ("{subject} holds a backend built on the runner's pool; FROZEN_KV MTP swaps only "
                 "ours: hand it the pool (a setter)")
SIZED = ("{subject} is sized by the active pool; FROZEN_KV MTP swaps in pools of other sizes: size "
         "it by self.{pool_attr}")
CAPACITY = ("{subject} keeps the active pool's size; FROZEN_KV MTP swaps in pools of other sizes: "
            "read it off self.{pool_attr}")
# (the translator swapped with the pool at the swap site still leaves what was made from it)
KEPT_OBJECT_MADE = "{subject} is made from {root}, unswapped by FROZEN_KV: build it per swap"
MADE_UNDER_FLAG = "{subject} is made under an SWA flag FROZEN_KV makes stale: {test_pool}"
# (an object, a buffer, a backend picked or made in a branch of a type test of the pool)
MADE_UNDER_TEST = ("{subject} is picked by a pool type test run once, stale under FROZEN_KV: "
                   "{test_pool}")


def _where(node) -> tuple:
    return (node.lineno, node.col_offset) if node is not None else ()


def _empty_half(store) -> bool:
    """``self.x = None`` in a branch of a pool type test (``else`` of ``if isinstance(pool,
    SWAKVPool):``): it holds no pool data. What goes stale is the decision: its finding is a
    later decision reading whether ``x`` is there (KVP003), or the pool data its twin keeps."""
    return isinstance(store.value, ast.Constant) and store.value.value is None and \
        store.statement is not None and bool(store.under & TYPE_TESTS)


class StalePoolState(Rule):
    """Pool state kept on the backend from a pool that is swapped per forward.

    What it does:
        Flags, in an attention backend, ``self.<attr>`` stored outside a per-forward method (in
        ``__init__``, a helper, a lazily filled attribute or a ``functools.cached_property``;
        filled lazily under ``if self.x is None:``, a latch ``if self.ready: return``, or in
        ``except AttributeError:`` of a ``try`` reading it)
        holding the active pool ``token_to_kv_pool`` under another name or SWA-specific state
        read from it (``full_to_swa_index_mapping``, ``layers_mapping``, ``translate_loc_*``, a
        type test that selects a value). The value is followed through locals, tuple unpacking,
        the walrus operator, ``typing.cast``, containers (dict, list, tuple, named tuples,
        dataclasses, objects built around it, ``self.pools[i] = ...``, ``self.maps.append(...)``),
        comprehensions (a walrus in one binds outside it), ``setattr(self, "name", ...)``,
        lambdas and closures, same-class helpers and factories called with the pool (a
        classmethod or staticmethod building a record, a closure factory, a generator
        materialised with ``dict()``/``list()``), the pool reached by other routes
        (``get_token_to_kv_pool()`` and ``get_attn_backend().token_to_kv_pool`` asked outside
        per-forward code, the target of a ``with`` whose manager yields the pool or is made
        from it, a module helper the backend hands itself to, with the pool or not: one of another
        module of the package is reported at the call; a memo reached through a local bound to
        it, ``memo = self.__dict__.setdefault("_m", {})``; the standard library's helpers under
        any alias, ``from functools import partial as bind``); per-layer buffers and scales read
        off a pool (``get_key_scale(i)``) are its data. Also flags what is kept from under a stale
        decision outside per-forward code (control dependence): a buffer allocated under a
        stored SWA flag (a ternary, a helper that returns early on the flag; in a branch of a
        gate KVP003 reports, ``if self.is_swa: self.table = torch.zeros(...)``, a store of no
        pool data, a pool size nor a literal picked is that gate's finding, which counts it:
        fixing the gate fixes it), a value picked by
        the runner's SWA flag (``runner.sliding_window_size if runner.is_hybrid_swa else -1``),
        a non-SWA type test of the pool (``isinstance(pool, MLATokenToKVPool)``: a decision
        on the pool all the same), and what a branch of a type test of the active pool picks or
        has made outside per-forward code (a child backend, a planner, a graph buffer made
        only for an SWA pool: which one is there, or whether it is, is that test's verdict, as
        in ``zeros(n) if isinstance(pool, SWAKVPool) else None``; a value computed from what
        every pool reports alike, its layout, is no choice). Not ``self.x = None`` in a branch
        of a pool type test (the ``else`` of ``if isinstance(pool, SWAKVPool):``): it holds
        nothing; a later decision on whether ``x`` is there is a finding (KVP003), and so is
        what the other branch makes or keeps in it. What is made outside per-forward code
        from a runner-built object the backend keeps (the runner's ``KVIndexTranslator``:
        capture tables from ``make_capture_tables(...)``, a buffer allocated only when its
        ``is_translating`` verdict holds) is flagged too: swapping that object with the pool
        leaves it as made; reads of it per forward are not (the swap the translator's
        finding asks for rebinds what they read). Also flags
        ``self.model_runner.token_to_kv_pool`` read in a per-forward method. An object built
        in the backend holds what its class (of the
        file, or with ``poolguard lint DIR`` of the package) stores on it for the arguments
        given: a helper given the pool keeps it, and so do its bound methods; one given only
        geometry, the allocator or the backend itself does not. So does a kept helper whose
        method, called outside per-forward code, stores what it is handed
        (``self.hooks.register("evict", partial(self._evict, pool.swa_kv_pool))``: reported
        at the call); one that only counts it does not. An inner backend built from the
        runner, or handed to ``__init__`` (a parameter annotated as a backend, or named one in a
        class that calls backend methods on another object: SGLang's ``HybridAttnBackend``,
        which FROZEN_KV MTP's topk-1 draft uses as it is), is flagged when this backend (one by
        lineage: it inherits a backend) keeps a ``token_to_kv_pool`` of its own that the swap
        rebinds without handing it on (a ``token_to_kv_pool`` setter, or
        ``inner.token_to_kv_pool = ...`` in a method); not the per-step backends of a
        multi-step draft wrapper (copies of its own kind, or held by a class that only follows
        the protocol): FROZEN_KV MTP swaps those, never the wrapper. An inner backend built
        here with pool state (``Inner(runner, kv_pool=pool.swa_kv_pool)``, the active pool
        under another name, a mapping or translator read off it) is flagged where it is kept
        when it keeps what it was handed (its class, of the file or the package, run with those
        arguments); one built with the runner, or keeping only geometry off the pool it is
        given, is not.
        A memo is kept state unless it is checked against the pool read on that call: a
        ``functools`` cache called with the pool, a dict keyed by the pool or its ``id()``, a
        memo refilled whenever the pool it was made for is not the current one are live; one
        keyed by the backend, a layer or a layer id, or filled once (``type(self).x``, a class
        attribute every instance shares) is flagged, unless every forward empties it first;
        wherever it lives: on ``self``, on the class, in a module global (``global M``, a
        module dict ``_MAPS[key]``, a dict nested in one, ``_STATE.maps[key]``, a global of
        another module of the package set through its name, ``registry.POOLS[lid] = ...``:
        its flag so set, ``registry.IS_SWA``, is KVP002's), set by the
        class itself or by a function of another module of the package it calls
        (``state.install(model_runner.token_to_kv_pool)`` setting that module's globals:
        reported at the call; one called per forward with that forward's pool is live). A
        helper of another module handed the backend itself (``Updater.for_backend(self)``)
        reads the backend's pool there as if handed it. A method
        cache (``functools.cached_property``, ``functools.cache``, ``functools.lru_cache``)
        keeping pool state is reported once, on its ``def`` line: the cache is the store,
        whichever return hands the state out (a ``# noqa: KVP001`` there silences it).
        A pool's capacity (``size``, ``size_swa``) is state too: pools of one model differ in
        size, so a buffer sized by it (through arithmetic, a shape, ``cdiv``) is flagged.
        Geometry (``page_size``, ``dtype``, ``head_dim``...) is shared by both pools and never
        flagged; neither is the swap point
        ``self.token_to_kv_pool = model_runner.token_to_kv_pool`` nor what a resolver that asks
        ``token_to_kv_pool_allocator.get_kvcache()`` returns (upstream ``_resolve_swa_kv_pool``).

    Why is this bad?
        Under FROZEN_KV MTP the draft backend's ``token_to_kv_pool`` is rebound to the target's
        SWA pool view on every forward; EAGLE drafts own a separate full pool and share the
        target's allocator. State derived once from "the" pool, or read from the runner (which
        the swap does not touch), describes another pool: SWA layers get full-pool page indices
        and the kernel reads past the SWA cache (illegal memory access). Resolve the SWA pool
        through the allocator, or read ``self.token_to_kv_pool`` when it is used.

    Fix safety:
        No safe fix: what a launch should read instead depends on the backend.

        The unsafe fix (``--fix --unsafe-fixes``; without the option the summary counts it as a
        hidden fix) rewrites the whole backend class to the #27491 resolver pattern (see KVP002
        and KVP003 for the flag and the gates). It clears a KVP001 in one shape: state read from
        the active pool inside a branch that the SWA flag guards (FlashAttention's local-attention
        builder bound to ``self.token_to_kv_pool.translate_loc_from_full_to_swa``) then reads the
        resolved pool, ``self.<pool_attr>.<x>``, which is the pool the launches read. A cached
        pool, mapping or bound method outside such a branch (MiniMax's ``self.kv_pool``) has no
        such rewrite: the class is declined and the finding stays. Every rewrite must compile and
        re-lint without KVP001-KVP003 in the class, or it is not applied.
    """

    VALID = (
        Valid(
            # picked per forward, or under the pool the allocator resolved; a memo keyed by the
            # pool's identity; what every pool reports alike (its layout) read under a test
            dedent(
                """\
                class LivePicksBackend(AttentionBackend):
                    def __init__(self, model_runner, dense, window):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.dense, self.window = dense, window
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        if self._swa_kv_pool is not None:
                            self.graph_swa_loc = torch.zeros(16)
                        pool = model_runner.token_to_kv_pool
                        if isinstance(pool, SWAKVPool):
                            self.layout = pool.full_kv_pool.layout == "5d"
                        else:
                            self.layout = pool.layout == "5d"
                        self._by_pool = {}

                    @staticmethod
                    def _resolve_swa_kv_pool(model_runner):
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return pool if isinstance(pool, SWAKVPool) else None

                    def init_forward_metadata(self, forward_batch):
                        if isinstance(self.token_to_kv_pool, SWAKVPool):
                            self.child = self.window
                        else:
                            self.child = self.dense

                    def _buffers(self, layer_id):
                        pool = self.token_to_kv_pool
                        memo = self._by_pool
                        key = (id(pool), layer_id)
                        if key not in memo:
                            memo[key] = pool.get_kv_buffer(layer_id)
                        return memo[key]

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return self.child, self._buffers(layer.layer_id)
                """
            )
        ),
        Valid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        # the swap point and geometry reads are fine: both pools share them
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.page_size = model_runner.token_to_kv_pool.page_size
                        self.kv_dtype = self.token_to_kv_pool.get_key_buffer(0).dtype
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        if self._swa_kv_pool is not None:
                            self._mapping = self._swa_kv_pool.full_to_swa_index_mapping

                    @staticmethod
                    def _resolve_swa_kv_pool(model_runner):
                        active = model_runner.token_to_kv_pool
                        if isinstance(active, SWAKVPool):
                            return active
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return pool if isinstance(pool, SWAKVPool) else None
                """
            )
        ),
        Valid(
            dedent(
                """\
                class DemoBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                        def translate(loc):  # a closure that reads the pool when called: live
                            return self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)

                        self.translate = translate

                    def init_forward_metadata(self, forward_batch):
                        # recomputed from the rebound pool on every forward
                        self.swa_mapping = self.token_to_kv_pool.full_to_swa_index_mapping

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool = self.token_to_kv_pool  # read at call time: this forward's pool
                        return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)


                class PoolStats:  # not an attention backend
                    def __init__(self, model_runner):
                        self.pool = model_runner.token_to_kv_pool
                """
            )
        ),
        Valid(
            dedent(
                """\
                def resolve_swa_kv_pool(runner):  # a resolver of the module: the fix itself
                    active = runner.token_to_kv_pool
                    if isinstance(active, SWAKVPool):
                        return active
                    pool = runner.token_to_kv_pool_allocator.get_kvcache()
                    return pool if isinstance(pool, SWAKVPool) else None


                class NewBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        if self._swa_kv_pool is not None:
                            self.cuda_graph_swa_page_table = torch.zeros(max_bs)
                """
            )
        ),
        Valid(
            # look-alikes: geometry, configuration, a re-resolved dict, a helper reading geometry
            dedent(
                """\
                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.token_to_kv_pool = pool
                        self.page_size, self.layer_num = pool.page_size, pool.layer_num
                        self.quant_method = pool.get_kv_cache_quant_method()
                        self.meta.sliding_window_size = model_runner.sliding_window_size
                        self._init_geometry(pool)
                        self.layout = "paged" if model_runner.page_size > 1 else "flat"

                    def _init_geometry(self, pool):
                        self.head_num = pool.head_num

                    def init_forward_metadata(self, forward_batch):
                        pool = self.token_to_kv_pool  # re-resolved per forward
                        self.ratio_pools = {r: pool.get_pool_for_ratio(r) for r in (4, 128)}
                """
            )
        ),
        Valid(
            # closures that read self.token_to_kv_pool when called: the live pool, never stale
            dedent(
                """\
                class LiveClosureBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._live = lambda loc: (
                            self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
                            if isinstance(self.token_to_kv_pool, SWAKVPool) else loc
                        )
                        self._is_swa_now = lambda: type(self.token_to_kv_pool) is SWAKVPool

                        def _translate(loc):
                            if isinstance(self.token_to_kv_pool, SWAKVPool):
                                return self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
                            return loc
                        self._translate = _translate
                """
            )
        ),
        Valid(
            # a cache keyed on the pool it is given per forward: each pool has its own entry
            dedent(
                """\
                @functools.lru_cache(maxsize=None)
                def _is_swa_pool(pool):
                    return isinstance(pool, SWAKVPool)


                class PoolKeyedCacheBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if _is_swa_pool(self.token_to_kv_pool):
                            return q
                        return k
                """
            )
        ),
        Valid(
            # look-alikes: buffers made under the resolved pool (the fix), a type assert that
            # raises (nothing is kept when it fails), geometry read unconditionally, per-layer
            # geometry of a buffer, a pool's configuration
            dedent(
                """\
                class PersistedLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        if not isinstance(pool, MHATokenToKVPool):
                            raise TypeError("this backend needs an MHA pool")
                        self.idx_head_dim = 128
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.window = model_runner.sliding_window_size
                        self.kv_dtypes = [pool.get_key_buffer(i).dtype for i in range(4)]
                        self.quant = pool.get_kv_cache_quant_method()
                        if model_runner.is_hybrid_swa:
                            logger.info("hybrid SWA model")

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        if self._swa_kv_pool is not None:
                            self.graph_swa_table = torch.zeros(max_bs)
                        self.graph_window = (
                            torch.zeros(max_bs) if self._swa_kv_pool is not None else None
                        )
                """
            )
        ),
        Valid(
            # a closure that asks the allocator for its pool on each call is the resolver, live
            dedent(
                """\
                class AllocatorClosureBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        allocator = model_runner.token_to_kv_pool_allocator

                        def translate(loc):
                            pool = allocator.get_kvcache()
                            if isinstance(pool, SWAKVPool):
                                return pool.translate_loc_from_full_to_swa(loc)
                            return loc

                        self.translate = translate
                """
            )
        ),
        Valid(
            # the None of a pool decision made per forward (or per call in a closure, or under
            # the resolved pool) is decided again each time
            dedent(
                """\
                class PerForwardWalrusBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                        def window_pool():
                            if (swa := getattr(self.token_to_kv_pool, "swa_kv_pool", None)):
                                return swa
                            return None
                        self.window_pool = window_pool

                    def init_forward_metadata(self, forward_batch):
                        pool = self.token_to_kv_pool
                        if (swa := getattr(pool, "swa_kv_pool", None)) is not None:
                            self.swa_view = swa
                        else:
                            self.swa_view = None
                """
            )
        ),
        Valid(
            # look-alikes: factories given geometry, the resolved pool or the pool per forward;
            # a helper returning geometry only; a generator of geometry no pool test filters
            dedent(
                """\
                @dataclass
                class PoolView:
                    swa: bool
                    inner: object = None

                    @classmethod
                    def of(cls, pool):
                        if isinstance(pool, SWAKVPool):
                            return cls(True, pool.swa_kv_pool)
                        return cls(False)


                def kv_heads(pool):
                    return pool.head_num


                def _shapes(pool):
                    yield "page", pool.page_size
                    yield "heads", pool.head_num


                class FactoryLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.heads = kv_heads(model_runner.token_to_kv_pool)
                        self.shapes = dict(_shapes(model_runner.token_to_kv_pool))
                        self.window_ids = [i for i in range(4) if i % 2 and self.heads > 1]

                        def bind(p):
                            return lambda loc: p.translate_loc_from_full_to_swa(loc)
                        self.to_swa = bind(self._swa_kv_pool)

                    def _resolve_swa_kv_pool(self, model_runner):
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return pool if isinstance(pool, SWAKVPool) else None

                    def init_forward_metadata(self, forward_batch):
                        view = PoolView.of(self.token_to_kv_pool)  # this forward's pool
                        if view.swa and forward_batch.layer_id in self.window_ids:
                            forward_batch.inner = view.inner
                """
            )
        ),
        Valid(
            # look-alikes: a helper that keeps only geometry, one given the allocator (a
            # resolver's input) or the backend itself (read live when called), a helper built
            # per forward, inner backends that the wrapper's token_to_kv_pool setter hands the
            # swapped pool to, and the per-step backends of a multi-step draft wrapper (one
            # with no pool of its own, one that only follows the protocol, one holding copies
            # of its own kind): FROZEN_KV MTP swaps a per-step backend, never the wrapper
            dedent(
                """\
                class _Geometry:
                    def __init__(self, pool):
                        self.page_size, self.head_dim = pool.page_size, pool.head_dim


                class _Resolver:
                    def __init__(self, allocator, backend):
                        self.allocator, self.backend = allocator, backend

                    def pool(self):
                        return self.backend.token_to_kv_pool


                class _Inner(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool


                class HelperLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.geometry = _Geometry(model_runner.token_to_kv_pool)
                        self.resolver = _Resolver(model_runner.token_to_kv_pool_allocator, self)
                        self.backends = [_Inner(model_runner), _Inner(model_runner)]
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    @property
                    def token_to_kv_pool(self):
                        return self.backends[0].token_to_kv_pool

                    @token_to_kv_pool.setter
                    def token_to_kv_pool(self, pool):
                        for inner in self.backends:
                            inner.token_to_kv_pool = pool

                    def init_forward_metadata(self, forward_batch):
                        self.geometry_now = _Geometry(self.token_to_kv_pool)
                        self.view = _Resolver(None, self.token_to_kv_pool)


                class StepsDraftBackend:
                    def __init__(self, model_runner):
                        self.attn_backends = [_Inner(model_runner) for _ in range(3)]


                class MultiStepDraftBackend:  # follows the protocol, inherits no backend
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.attn_backends = [_Inner(model_runner) for _ in range(3)]


                class InnerMultiStepBackend(_Inner):  # per-step copies of its own kind
                    def __init__(self, model_runner):
                        super().__init__(model_runner)
                        self.attn_backends = []
                        for _ in range(3):
                            self.attn_backends.append(_Inner(model_runner))
                """
            )
        ),
        Valid(
            # look-alikes: the accessor asked per forward or in a closure, a with over a lock,
            # a helper the backend hands itself to that reads its live pool
            dedent(
                """\
                def _live_rows(backend, table):
                    pool = backend.token_to_kv_pool
                    return pool.full_to_swa_index_mapping[table] if hasattr(
                        pool, "swa_kv_pool") else table


                class ReachedLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._lock = threading.Lock()
                        self._current = lambda: get_token_to_kv_pool()
                        with self._lock:
                            self.heads = get_token_to_kv_pool().head_num

                    def init_forward_metadata(self, forward_batch):
                        pool = get_token_to_kv_pool()
                        if isinstance(pool, SWAKVPool):
                            forward_batch.rows = _live_rows(self, forward_batch.table)
                """
            )
        ),
        Valid(
            # geometry and shapes read off the pool, whatever else their names say: a window,
            # SWA head and layer counts, a mapping of layer ids (layers_mapping is SWA state)
            dedent(
                """\
                class GeometryNamesBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.token_to_kv_pool = pool
                        self.window = pool.sliding_window_size
                        self.swa_heads, self.swa_layers = pool.swa_head_num, pool.swa_layer_nums
                        self.page_size, self.kv_dtype = pool.page_size, pool.store_dtype
                        self.device, self.layout = pool.device, pool.kv_cache_layout
                        self.sparse_layers = list(pool.sparse_layer_id_mapping)
                """
            )
        ),
        Valid(
            # what the runner builds from its geometry, its allocator or a pool's sizes; a
            # translator built per forward or from the allocator-resolved pool
            dedent(
                """\
                class KVIndexTranslator:
                    def __init__(self, token_to_kv_pool, page_size=1):
                        self.page_size = page_size
                        self.to_swa = None
                        if isinstance(token_to_kv_pool, SWAKVPool):
                            self.to_swa = token_to_kv_pool.translate_loc_from_full_to_swa


                class ModelRunner:
                    def init_memory_pool(self):
                        pool = self.token_to_kv_pool
                        self.kv_index_translator = KVIndexTranslator(token_to_kv_pool=pool)
                        self.num_tokens = self.token_to_kv_pool.size
                        self.sliding_window_size = self.token_to_kv_pool.sliding_window_size
                        self.table = KVIndexTranslator(self.token_to_kv_pool_allocator)
                        self.graph_buffers = torch.zeros(self.max_bs, device=pool.device)


                class ResolvedTranslatorBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.num_tokens = model_runner.num_tokens
                        self.window = model_runner.sliding_window_size
                        self.table = model_runner.table
                        self.graph_buffers = model_runner.graph_buffers
                        self.page_size = model_runner.page_size
                        self.translator = self._resolve_translator(model_runner)

                    def _resolve_translator(self, model_runner):
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return KVIndexTranslator(token_to_kv_pool=pool)

                    def init_forward_metadata(self, forward_batch):
                        translator = KVIndexTranslator(token_to_kv_pool=self.token_to_kv_pool)
                        self.write_ids = translator.to_swa
                        self.live = forward_batch.model_runner.kv_index_translator
                """
            ),
        ),
        Valid(
            # what SGLang requires a class to hold (bind_and_verify_backends asserts every
            # backend carries the runner's one translator): a wrapper forwarding the translator
            # of the backend it is given, and a multi-step draft wrapper that only follows the
            # protocol (FROZEN_KV MTP swaps neither)
            dedent(
                """\
                class ModelRunner:
                    def init_memory_pool(self):
                        self.kv_index_translator = KVIndexTranslator(self.token_to_kv_pool)


                class ForwardingWrapperBackend(AttentionBackend):
                    def __init__(self, primary, children):
                        self.token_to_kv_pool = primary.token_to_kv_pool
                        self.kv_index_translator = primary.kv_index_translator


                class StepsMultiStepDraftBackend:
                    def __init__(self, model_runner, speculative_num_steps):
                        self.kv_index_translator = model_runner.kv_index_translator
                """
            ),
        ),
        Valid(
            # the pool given by keyword to helpers returning geometry or another argument, and
            # to a helper per forward
            dedent(
                """\
                def page_of(*, pool):
                    return pool.page_size


                def pick(pool=None, size=0):
                    return size


                class KeywordLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.page = page_of(pool=model_runner.token_to_kv_pool)
                        self.size = pick(pool=self.token_to_kv_pool, size=4)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return page_of(pool=self.token_to_kv_pool)
                """
            )
        ),
        Valid(
            # look-alikes: a spread dict or a partial handing geometry, or the live pool per forward
            dedent(
                """\
                def window_pool_of(pool, depth=0):
                    return pool.swa_kv_pool


                class SpreadGeometryBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.depth = int(**{"x": model_runner.sliding_window_size})
                        self.window = functools.partial(max, model_runner.sliding_window_size)(0)

                    def init_forward_metadata(self, forward_batch):
                        options = {"pool": self.token_to_kv_pool}
                        forward_batch.window_pool = window_pool_of(**options)
                """
            )
        ),
        Valid(
            # memos checked against the pool read on this call: a cache keyed by the pool
            # object, a memo refilled whenever the pool it was made for is not the current one
            # (either order, ``==``, an else-branch, an early return), dicts keyed by the pool
            # or its id(): each pool the swap hands in gets its own entry; a memo keyed by a
            # layer that every forward empties first
            dedent(
                """\
                class PoolKeyedMemoBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._for = self._seen = self._to_swa = self._map = None
                        self._by_id = {}

                    @staticmethod
                    @functools.lru_cache(maxsize=8)
                    def _mapping_of(pool):
                        return getattr(pool, "full_to_swa_index_mapping", None)

                    def _translator(self):
                        pool = self.token_to_kv_pool
                        if self._for is not pool:
                            self._for = pool
                            self._to_swa = pool.translate_loc_from_full_to_swa
                        return self._to_swa

                    def _mapping(self):
                        pool = self.token_to_kv_pool
                        if pool == self._seen:
                            return self._map
                        self._seen = pool
                        self._map = pool.full_to_swa_index_mapping
                        return self._map

                    def init_forward_metadata(self, forward_batch):
                        self._rows = {}

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool = self.token_to_kv_pool
                        if id(pool) not in self._by_id:
                            self._by_id[id(pool)] = pool.swa_kv_pool
                        if layer.layer_id not in self._rows:
                            self._rows[layer.layer_id] = pool.get_key_buffer(layer.layer_id)
                        if self._mapping_of(pool) is not None:
                            return self._translator()(self._mapping()[q])
                        return self._by_id[id(pool)]
                """
            )
        ),
        Valid(
            # sized by geometry, by the batch, by the resolved pool or the shared allocator, or
            # allocated again on every forward: page size, window and head counts stay geometry
            dedent(
                """\
                class GeometrySizedBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.window_pages = model_runner.sliding_window_size // self.page_size
                        self.swa_capacity = model_runner.token_to_kv_pool_allocator.size_swa

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        pool = self.token_to_kv_pool
                        self.k = torch.empty(max_num_tokens, pool.head_num, dtype=pool.dtype)
                        self.table = torch.zeros((max_bs, self.window_pages + 1))
                        self.loc = torch.zeros(self.swa_capacity, dtype=torch.int64)
                        if self._swa_kv_pool is not None:
                            self.swa_loc = torch.zeros(self._swa_kv_pool.size_swa)

                    def init_forward_metadata(self, forward_batch):
                        self.scratch = torch.zeros(self.token_to_kv_pool.size + 1)
                """
            )
        ),
        Valid(
            # the pool held but never used as one: the backing field of a token_to_kv_pool
            # property (the swap point by another name) and an anchor only compared by identity
            # with the live pool (how a swap is noticed); the inner backend handed to __init__
            # is handed the swapped pool by the setter
            dedent(
                """\
                class SwapAwareBackend(AttentionBackend):
                    def __init__(self, model_runner, decode_backend: AttentionBackend):
                        self.decode_backend = decode_backend
                        self._pool = model_runner.token_to_kv_pool
                        self._built_with = model_runner.token_to_kv_pool

                    @property
                    def token_to_kv_pool(self):
                        return self._pool

                    @token_to_kv_pool.setter
                    def token_to_kv_pool(self, pool):
                        self._pool = pool
                        self.decode_backend.token_to_kv_pool = pool

                    def init_forward_metadata(self, forward_batch):
                        if self._built_with is not self.token_to_kv_pool:
                            forward_batch.swapped = True
                """
            )
        ),
        Valid(
            # the helper handed the backend's own pool, or handed the runner for its geometry
            dedent(
                """\
                def window_pool(pool):
                    return pool if isinstance(pool, SWAKVPool) else None


                def page_size_of(runner):
                    return runner.page_size


                class HandedPoolBackend(AttentionBackend):
                    def init_forward_metadata(self, forward_batch):
                        swa = window_pool(self.token_to_kv_pool)
                        self.loc = swa.translate_loc_from_full_to_swa(loc) if swa else loc
                        self.page = page_size_of(self.model_runner)
                """
            )
        ),
    )
    INVALID = (
        Invalid(
            # what the branches of a type test of the pool pick or have made, outside
            # per-forward code: which child, which planner is there is that verdict
            dedent(
                """\
                class PickingBackend(AttentionBackend):
                    def __init__(self, model_runner, dense, window):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.dense, self.window = dense, window
                        if isinstance(self.token_to_kv_pool, SWAKVPool):
                            self.child = self.window
                            self.plan = WindowPlan(model_runner.sliding_window_size)
                        else:
                            self.child = self.dense
                            self.plan = DensePlan()
                """
            ),
            expected=((6, "KVP001"), (7, "KVP001"), (9, "KVP001"), (10, "KVP001")),
        ),
        Invalid(
            # a memo reached through a local bound to it, and the standard helpers under
            # aliases (from functools import partial as bind): the same kept state
            dedent(
                """\
                from functools import partial as bind
                from operator import attrgetter as reader


                class AliasBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.to_swa = bind(SWAKVPool.translate_loc_from_full_to_swa, pool)
                        both = reader("swa_kv_pool", "full_to_swa_index_mapping")
                        self.side, self.mapping = both(pool)

                    def _buffers(self, layer_id):
                        memo = self.__dict__.setdefault("_buffers_memo", {})
                        if layer_id not in memo:
                            memo[layer_id] = self.token_to_kv_pool.get_kv_buffer(layer_id)
                        return memo[layer_id]

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return self._buffers(layer.layer_id)
                """
            ),
            expected=((8, "KVP001"), (10, "KVP001"), (10, "KVP001"), (15, "KVP001")),
        ),
        Invalid(
            # the pool passed by keyword: to a positional-or-keyword parameter, a keyword-only
            # one, **kwargs (in another module the package index binds them the same way)
            dedent(
                """\
                def main_of(pool, depth=0):
                    return pool.main_pool


                def swa_of(*, pool, strict=False):
                    return pool.swa_kv_pool


                def mapping_of(**parts):
                    return parts["pool"].full_to_swa_index_mapping


                def indexers(*, token_to_kv_pool):
                    return Indexer(token_to_kv_pool), Indexer(token_to_kv_pool)


                class KeywordBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.main = main_of(depth=1, pool=model_runner.token_to_kv_pool)
                        self.swa = swa_of(pool=self.token_to_kv_pool, strict=True)
                        self.mapping = mapping_of(pool=model_runner.token_to_kv_pool)
                        self.prefill, self.decode = indexers(token_to_kv_pool=self.token_to_kv_pool)
                """
            ),
            expected=((20, "KVP001"), (21, "KVP001"), (22, "KVP001"), (23, "KVP001"),
                      (23, "KVP001")),
        ),
        Invalid(
            # data whose name also says geometry: the head noun (a buffer, a mapping, a pool)
            # decides, so fp8 scales' buffers and device-side mappings are the pool's state
            dedent(
                """\
                class DataNamesBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.kv_pool = model_runner.token_to_kv_pool
                        self._loc = self.kv_pool.main_pool.full_to_hisparse_device_index_mapping
                        self.k_scales = self.kv_pool.k_scale_buffers
                        self.swa_buffer = self.kv_pool.fp8_swa_buffer
                        self.window_pool = self.kv_pool.sliding_window_kv_pool
                        self.to_swa = self.kv_pool.full_to_swa_device_mapping
                """
            ),
            expected=((3, "KVP001"), (4, "KVP001"), (5, "KVP001"), (6, "KVP001"),
                      (7, "KVP001"), (8, "KVP001")),
        ),
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool) else None
                """
            ),
            expected=((4, "KVP001"),),
        ),
        Invalid(
            dedent(
                """\
                class DemoBackend(TritonAttnBackend):
                    def __init__(self, model_runner):
                        pool = getattr(model_runner, "token_to_kv_pool")
                        self.kv_pool, self.page_size = pool, pool.page_size
                        self.mapping = pool.full_to_swa_index_mapping
                        _, self.first_is_swa = pool.layers_mapping[0]
                        self._init_swa(model_runner)

                    def _init_swa(self, model_runner):
                        self.to_swa = model_runner.token_to_kv_pool.translate_loc_from_full_to_swa
                        self.pool_type = type(self.token_to_kv_pool)
                        self.draft_pool = self._pick_pool(model_runner)

                    def _pick_pool(self, model_runner):
                        return model_runner.token_to_kv_pool
                """
            ),
            expected=((4, "KVP001"), (5, "KVP001"), (6, "KVP001"), (10, "KVP001"),
                      (11, "KVP001"), (12, "KVP001")),
        ),
        Invalid(
            dedent(
                """\
                SwaInfo = namedtuple("SwaInfo", "mapping layers")


                @dataclass
                class SwaState:
                    pools: list


                class DemoBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        if (pool := cast(SWAKVPool, model_runner.token_to_kv_pool)) is not None:
                            self.state = {"pool": pool}
                        self.info = SwaInfo(pool.full_to_swa_index_mapping, 0)
                        self.swa_ids = [i for i, (_, swa) in pool.layers_mapping.items() if swa]
                        setattr(self, "swa_map", pool.full_to_swa_index_mapping)
                        self.translate = lambda loc: pool.translate_loc_from_full_to_swa(loc)

                        def to_swa(loc):
                            return pool.translate_loc_from_full_to_swa(loc)

                        self.to_swa = to_swa
                        self.kept = SwaState([pool])
                        self.builder = mod.Builder(translate=pool.translate_loc_from_full_to_swa)
                        self.has_builder = self.builder is not None  # a record's presence: no flag
                """
            ),
            expected=((12, "KVP001"), (13, "KVP001"), (14, "KVP001"), (15, "KVP001"),
                      (16, "KVP001"), (21, "KVP001"), (22, "KVP001"), (23, "KVP001")),
        ),
        Invalid(
            dedent(
                """\
                class DemoBackend(FlashInferAttnBackend):
                    @functools.cached_property
                    def swa_mapping(self):
                        return self.token_to_kv_pool.full_to_swa_index_mapping

                    def _translator(self):
                        if self._to_swa is None:  # filled once, on first use
                            self._to_swa = self.token_to_kv_pool.translate_loc_from_full_to_swa
                        return self._to_swa

                    def forward_extend(self, q, k, v, layer, forward_batch):
                        pool = self.model_runner.token_to_kv_pool  # the runner's, not the view
                        return pool.translate_loc_from_full_to_swa(self._translator())
                """
            ),
            expected=((3, "KVP001"), (8, "KVP001"), (12, "KVP001")),
        ),
        Invalid(
            # the runner handed per forward to a helper (of the file, a method, of the package)
            # that reads the active pool off it: the runner's pool, as if read at the call
            dedent(
                """\
                def window_pool(runner):
                    pool = runner.token_to_kv_pool
                    return pool if isinstance(pool, SWAKVPool) else None


                class HandedRunnerBackend(AttentionBackend):
                    def init_forward_metadata(self, forward_batch):
                        swa = window_pool(self.model_runner)
                        self.loc = swa.translate_loc_from_full_to_swa(loc) if swa else loc

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool = self._pool_of(runner=self.model_runner)
                        return pool.get_key_buffer(layer.layer_id)

                    def _pool_of(self, runner):
                        return runner.token_to_kv_pool
                """
            ),
            expected=((8, "KVP001"), (12, "KVP001")),
        ),
        Invalid(
            dedent(
                """\
                class DemoBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self.pools, self.maps, self.sizes = {}, [], []
                        self.pools["swa"] = model_runner.token_to_kv_pool
                        self.maps.append(model_runner.token_to_kv_pool.full_to_swa_index_mapping)
                        self.sizes.append(model_runner.token_to_kv_pool.page_size)  # geometry
                """
            ),
            expected=((4, "KVP001"), (5, "KVP001")),
        ),
        Invalid(
            dedent(
                """\
                class SpecDecodeHelper(PoolUser):  # a backend by --kvp-backend-bases=PoolUser
                    def __init__(self, model_runner):
                        self.swa_pool = model_runner.token_to_kv_pool
                """
            ),
            expected=((3, "KVP001"),),
            options=Options(backend_bases=("PoolUser",)),
        ),
        Invalid(
            # sources in any spelling (attrgetter, vars(), sub-pools, per-ratio pools, bound
            # methods);
            # sinks at any depth, class attributes, module containers, __dict__.update, a helper
            # given the pool, a sub-pool picked by a type test, a functools cache
            dedent(
                """\
                _POOL_OF = operator.attrgetter("token_to_kv_pool")
                _POOLS = {}


                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = _POOL_OF(model_runner)
                        self.sub_pool = vars(model_runner)["token_to_kv_pool"].main_pool
                        self.ratio_pools = {r: pool.get_pool_for_ratio(r) for r in (4, 128)}
                        self.k_buffer_of = pool.get_key_buffer
                        self.meta.mapping = pool.full_to_swa_index_mapping
                        type(self).shared_pool = pool
                        _POOLS["active"] = pool
                        self.__dict__.update(view=pool.swa_kv_pool)
                        self._init_translation(pool)
                        self.half = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

                    def _init_translation(self, pool):
                        self.to_swa = pool.translate_loc_from_full_to_swa

                    @functools.lru_cache(maxsize=None)
                    def swa_mapping(self):
                        return self.token_to_kv_pool.full_to_swa_index_mapping
                """
            ),
            expected=((8, "KVP001"), (9, "KVP001"), (10, "KVP001"), (11, "KVP001"),
                      (12, "KVP001"), (13, "KVP001"), (14, "KVP001"), (16, "KVP001"),
                      (19, "KVP001"), (22, "KVP001")),
        ),
        Invalid(
            # what a closure captures at store time is stale: a local pool, a default argument
            dedent(
                """\
                class CapturedClosureBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        pool = model_runner.token_to_kv_pool
                        self._a = lambda loc: pool.translate_loc_from_full_to_swa(loc)
                        self._b = lambda: type(pool) is SWAKVPool
                        self._c = lambda i, t=self.token_to_kv_pool.full_to_swa_index_mapping: t[i]
                """
            ),
            expected=((5, "KVP001"), (6, "KVP001"), (7, "KVP001")),
        ),
        Invalid(
            # persisted state made under a stale flag (KVP003 on the gate; a buffer of no pool
            # data made in a branch of it is that gate's finding, which counts it): a ternary,
            # after an early return in a helper; a
            # value picked by the runner's flag; per-layer scales and buffers in containers; a
            # walrus in a comprehension
            dedent(
                """\
                class PersistedUnderFlagBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.is_swa = model_runner.token_to_kv_pool.is_swa_pool
                        self.graph_tables = {}
                        if self.is_swa:
                            self.graph_tables["swa"] = torch.zeros(4)
                        self.window_tables = [torch.zeros(4)] if self.is_swa else None
                        self.window = model_runner.window if model_runner.is_hybrid_swa else -1
                        self.k_scales = [pool.get_key_scale(i) for i in ids] if self.fp8 else None
                        self.v_scales = {i: pool.get_value_scale(i) for i in range(4)}
                        self.v_buffers = list(map(pool.get_value_buffer, range(4)))
                        if any((inner := getattr(p, "swa_kv_pool", None)) for p in [pool]):
                            self._swa_inner = inner

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        if self.is_swa:
                            self.graph_window_table = torch.zeros(max_bs)
                        self.graph_swa_loc = self._alloc_swa(max_bs)

                    def _alloc_swa(self, max_bs):
                        if not self.is_swa:
                            return None
                        return torch.zeros(max_bs)
                """
            ),
            expected=((4, "KVP002"), (6, "KVP003"), (8, "KVP001"),
                      (9, "KVP001"), (10, "KVP001"), (11, "KVP001"), (12, "KVP001"),
                      (14, "KVP001"), (17, "KVP003"), (19, "KVP001"),
                      (22, "KVP003")),
        ),
        Invalid(
            # what is kept from under a stale flag in every spelling of a decision and a store:
            # in a branch of match or if (an append, setattr, __dict__.update) it is the gate's
            # finding; the rest of __init__ after an early return is KVP001
            dedent(
                """\
                class UnderFlagFormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                        self.tables = []
                        match self.is_swa:
                            case True:
                                self.m_table = torch.zeros(4)
                        if self.is_swa:
                            self.tables.append(torch.zeros(4))
                            setattr(self, "s_table", torch.zeros(4))
                            self.__dict__.update(d_table=torch.zeros(4))
                        if not self.is_swa:
                            return
                        self.late_table = torch.zeros(4)
                """
            ),
            expected=((3, "KVP002"), (5, "KVP003"), (8, "KVP003"), (12, "KVP003"), (14, "KVP001")),
        ),
        Invalid(
            # backends by what they are: named ...Backend with no base, or defining a method of
            # the backend protocol under a helper base of another name; a record's pool field
            # read in a closure
            dedent(
                """\
                class DllmFlashAttention(_DecodeOnly):
                    def __init__(self, model_runner):
                        self.mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return q


                class EagleMultiStepDraftBackend:
                    def __init__(self, model_runner):
                        state = SimpleNamespace(kv_pool=model_runner.token_to_kv_pool)
                        self.write = lambda loc: state.kv_pool.translate_loc_from_full_to_swa(loc)
                """
            ),
            expected=((3, "KVP001"), (12, "KVP001")),
        ),
        Invalid(
            # a pool decision's pool-data half is the finding; its None twin in the other
            # branch holds no pool data and is the same defect (7, 14, 18, 22: no second one)
            dedent(
                """\
                class WalrusElseBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        if (swa := getattr(pool, "swa_kv_pool", None)) is not None:
                            self._swa_inner = swa
                        else:
                            self._swa_inner = None

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        pool = self.token_to_kv_pool  # the init-time pool here too
                        if (swa := getattr(pool, "swa_kv_pool", None)) is not None:
                            self.graph_swa = swa
                        else:
                            self.graph_swa = None
                        if isinstance(self.token_to_kv_pool, SWAKVPool):
                            self.win = pool.swa_kv_pool
                        elif pool is not None:
                            self.win = None
                        try:
                            mapping = pool.full_to_swa_index_mapping
                        except AttributeError:
                            self.graph_map = None
                        else:  # runs after the whole try body: it holds what the body read
                            self.graph_map = mapping
                """
            ),
            expected=((5, "KVP001"), (12, "KVP001"), (16, "KVP001"), (24, "KVP001")),
        ),
        Invalid(
            # pool state packed into a value by a factory called with the pool: a classmethod
            # building ``cls(...)``, a module function building a record, a closure factory
            # defined in the method, a generator materialised with dict()/list(); and a list
            # of layer ids a type test filters (its elements are geometry, the choice is not)
            dedent(
                """\
                @dataclass
                class PoolView:
                    swa: bool
                    inner: object = None

                    @classmethod
                    def of(cls, pool):
                        if isinstance(pool, SWAKVPool):
                            return cls(True, pool.swa_kv_pool)
                        return cls(False)


                def _sub_pools(pool):
                    if hasattr(pool, "swa_kv_pool"):
                        yield "swa", pool.swa_kv_pool
                    yield "full", pool


                class FactoryBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.view = PoolView.of(pool)
                        self.by_kind = dict(_sub_pools(pool))
                        self.pool_list = list(_sub_pools(model_runner.token_to_kv_pool))

                        def bind(p, shift=0):
                            return lambda loc: p.translate_loc_from_full_to_swa(loc + shift)
                        self.to_swa = bind(pool)
                        self.swa_ids = {i for i in range(4) if type(pool) is SWAKVPool}
                """
            ),
            expected=((22, "KVP001"), (23, "KVP001"), (24, "KVP001"), (28, "KVP001"),
                      (29, "KVP001")),
        ),
        Invalid(
            # helper objects built around the pool (their fields, bound methods, a container of
            # them) and inner backends built from the runner, whose own token_to_kv_pool the
            # swap of this backend's never reaches
            dedent(
                """\
                class _Updater:
                    def __init__(self, pool, step=0):
                        self.kv_pool, self.step = pool, step

                    def update(self, loc):
                        return self.kv_pool.get_key_buffer(0), loc


                class _Inner(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool


                class HelperObjectBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.updater = _Updater(model_runner.token_to_kv_pool)
                        self.update_indices = _Updater(self.token_to_kv_pool).update
                        helper = _Updater(step=1, pool=self.token_to_kv_pool)
                        self.helpers = {"decode": helper}
                        self.decode_backend = _Inner(model_runner)
                        self.modes = SimpleNamespace(extend=_Inner(model_runner))
                """
            ),
            expected=((17, "KVP001"), (18, "KVP001"), (20, "KVP001"), (21, "KVP001"),
                      (22, "KVP001")),
        ),
        Invalid(
            # the pool reached by other routes: SGLang's forward-context accessors asked in
            # __init__, the target of a with whose manager yields the pool or is made from it,
            # a module helper the backend hands itself to
            dedent(
                """\
                def _keep_mapping(backend):
                    backend.mapping = backend.token_to_kv_pool.full_to_swa_index_mapping


                class ReachedPoolBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.ctx_pool = get_token_to_kv_pool()
                        self.ctx_sub = get_attn_backend().token_to_kv_pool.swa_kv_pool
                        with self._pool() as pool:
                            self.to_swa = pool.translate_loc_from_full_to_swa
                        with scoped(model_runner.token_to_kv_pool) as scoped_pool:
                            self.scoped = scoped_pool
                        _keep_mapping(self)

                    @contextlib.contextmanager
                    def _pool(self):
                        yield self.token_to_kv_pool
                """
            ),
            expected=((2, "KVP001"), (8, "KVP001"), (9, "KVP001"), (11, "KVP001"),
                      (13, "KVP001")),
        ),
        Invalid(
            # a runner attribute its class builds once from its own pool (SGLang 0.5.20+'s
            # KVIndexTranslator, a sub-pool, a bound method of it), in any spelling of the read
            dedent(
                """\
                class KVIndexTranslator:
                    def __init__(self, token_to_kv_pool, page_size=1):
                        self.page_size = page_size
                        self.to_swa = None
                        if isinstance(token_to_kv_pool, SWAKVPool):
                            self.to_swa = token_to_kv_pool.translate_loc_from_full_to_swa


                class ModelRunner:
                    def init_memory_pool(self):
                        pool = self.token_to_kv_pool
                        self.swa_pool = pool.swa_kv_pool
                        self.to_swa = self.token_to_kv_pool.translate_loc_from_full_to_swa
                        self.kv_index_translator = KVIndexTranslator(
                            token_to_kv_pool=self.token_to_kv_pool, page_size=self.page_size
                        )


                class RunnerBuiltBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.kv_index_translator = model_runner.kv_index_translator
                        self.translator = getattr(model_runner, "kv_index_translator")
                        translator = vars(model_runner)["kv_index_translator"]
                        self.spaces = {"write": translator}
                        self.translate = model_runner.to_swa
                        self.pools = [model_runner.swa_pool]
                        self.model_runner = model_runner
                        self._bind(model_runner)

                    def _bind(self, runner):
                        self.bound = self.model_runner.kv_index_translator
                        self.kept = (runner.kv_index_translator, runner.page_size)
                """
            ),
            expected=((22, "KVP001"), (23, "KVP001"), (25, "KVP001"), (26, "KVP001"),
                      (27, "KVP001"), (32, "KVP001"), (33, "KVP001")),
        ),
        Invalid(
            # the pool handed on through a spread dict (a display or a local bound to one) or
            # a partial called at once reaches the helper's parameter like a keyword does
            dedent(
                """\
                def window_pool_of(pool, depth=0):
                    return pool.swa_kv_pool


                class SpreadBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        options = {"pool": pool}
                        self.a = window_pool_of(**{"pool": pool, "depth": 1})
                        self.b = window_pool_of(**options)
                        self.c = functools.partial(window_pool_of, pool=pool)()
                """
            ),
            expected=((9, "KVP001"), (10, "KVP001"), (11, "KVP001")),
        ),
        Invalid(
            # memos keyed by what the swap does not change: the backend (a cache on a method
            # without arguments), a layer, a layer id; a class attribute filled once (shared by
            # the target's and the draft's backends)
            dedent(
                """\
                class LayerKeyedMemoBackend(AttentionBackend):
                    sub = None

                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._maps, self._for, self._to_swa = {}, None, None

                    @functools.lru_cache(maxsize=None)
                    def _swa_buffer(self, layer_id):
                        return self.token_to_kv_pool.swa_kv_pool.get_key_buffer(layer_id)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool, lid = self.token_to_kv_pool, layer.layer_id
                        if lid not in self._maps:
                            self._maps[lid] = pool.full_to_swa_index_mapping
                        if self._for is not layer:
                            self._for = layer
                            self._to_swa = pool.translate_loc_from_full_to_swa
                        if type(self).sub is None:
                            type(self).sub = pool.swa_kv_pool
                        return self._swa_buffer(lid), self._maps[lid]
                """
            ),
            expected=((9, "KVP001"), (15, "KVP001"), (18, "KVP001"), (20, "KVP001")),
        ),
        Invalid(
            # a pool's capacity is not geometry (the FROZEN_KV draft's dummy pool holds 64
            # tokens): a buffer sized by it, through arithmetic, a shape or a count, and the
            # size kept as a number
            dedent(
                """\
                class CapacitySizedBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.capacity = model_runner.token_to_kv_pool.size

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        pool = self.token_to_kv_pool
                        self.swa_loc = torch.zeros(pool.size_swa, dtype=torch.int64)
                        self.table = torch.full((max_bs, self.capacity + 1), -1)
                        self.pages = self.swa_loc.new_zeros(triton.cdiv(pool.size_full, 64))
                """
            ),
            expected=((4, "KVP001"), (8, "KVP001"), (9, "KVP001"), (10, "KVP001")),
        ),
        Invalid(
            # look-alikes of KVP003 gates (KVP001 on the kept template, KVP002 on the kept
            # table of one SWA flag): a local bound to a kept template reads its fields, and
            # geometry is no flag; a copy with its own entry for the flag holds that entry
            dedent(
                """\
                class TemplateFieldBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
                        self.meta = Meta(use_swa=isinstance(pool, SWAKVPool), window=8)
                        self.opts = {"swa": isinstance(pool, SWAKVPool)}

                    def init_forward_metadata(self, forward_batch):
                        md = self.meta
                        if md.window > 0:
                            forward_batch.window = md.window
                        now = {**self.opts, "swa": isinstance(self.token_to_kv_pool, SWAKVPool)}
                        if now["swa"]:
                            forward_batch.swa = True
                """
            ),
            expected=((4, "KVP001"), (5, "KVP002")),
        ),
        Invalid(
            # in a branch of a reported gate: a zeros buffer or an env value is the gate's
            # finding; pool data, a buffer sized by the pool and a literal it picks are not
            dedent(
                """\
                class GuardedStoresBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.is_swa = isinstance(pool, SWAKVPool)
                        if self.is_swa:
                            self.graph_loc = torch.zeros(8, dtype=torch.int64)
                            self.rows = pool.full_to_swa_index_mapping
                            self.loc = torch.zeros(pool.size_swa)
                            self.mode = 1
                        else:
                            self.mode_env = os.environ.get("MODE", "0")
                """
            ),
            expected=((4, "KVP002"), (5, "KVP003"), (7, "KVP001"), (8, "KVP001"),
                      (9, "KVP001")),
        ),
        Invalid(
            # a setter counts for the inners it hands the new pool to: the prefill backend is
            # never given it (SwapAwareBackend's VALID twin hands it to its only inner)
            dedent(
                """\
                class HalfHandedBackend(AttentionBackend):
                    def __init__(self, model_runner, prefill_backend: AttentionBackend,
                                 decode_backend: AttentionBackend):
                        self.prefill_backend = prefill_backend
                        self.decode_backend = decode_backend
                        self._pool = model_runner.token_to_kv_pool

                    @property
                    def token_to_kv_pool(self):
                        return self._pool

                    @token_to_kv_pool.setter
                    def token_to_kv_pool(self, pool):
                        self._pool = pool
                        self.decode_backend.token_to_kv_pool = pool
                """
            ),
            expected=((4, "KVP001"),),
        ),
        Invalid(
            # the runner reached through other objects per forward (a forward context, the
            # backend it names): its pool is still the runner's, not the swapped one
            dedent(
                """\
                class ContextReadBackend(AttentionBackend):
                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool = get_forward_context().attn_backend.model_runner.token_to_kv_pool
                        return pool.get_key_buffer(layer.layer_id)
                """
            ),
            expected=((3, "KVP001"),),
        ),
    )
    CODE = "KVP001"
    NAME = "stale-pool-state"
    MESSAGE = "{subject}; FROZEN_KV swaps pools: read self.token_to_kv_pool per forward"
    # (the runner's own pool, read per call: the swap rebinds the backend's, so that is where)
    RUNNER_READ_MESSAGE = (
        "the runner's token_to_kv_pool is not the pool FROZEN_KV MTP swaps in per forward: "
        "read the pool from self.token_to_kv_pool"
    )
    # (the same read, made by a helper handed the runner: the call is where to change it)
    RUNNER_CALL_MESSAGE = (
        "{call}() reads the runner's pool, not the one FROZEN_KV MTP swaps in: hand it the "
        "pool from self.token_to_kv_pool"
    )

    def check(self) -> Iterator[Report]:
        said = set()  # one store made by two turns (a helper's and its caller's, the module
        # state's and a class's calling it) is one finding
        for cls in self.facts.classes:
            seen = {}  # place -> what made it (_made_from_runner_object)
            anchors = _identity_anchors(cls.node)
            kept = [s for s in cls.stores if s.attr in anchors and s.bits & STATE == POOL]
            # an object kept stale as it was made (found there) is not found again where a
            # forward call fills it (``MethodFlow.kept_fill``): one object, one finding
            made_stale = {s.attr for s in cls.stores if s.sink and s.statement is not None
                          and s.method not in cls.per_forward and s.bits & STATE}
            for store in cls.stores:
                if not store.sink or store.resolver or is_swap_point(store) or store in kept:
                    continue
                if store.statement is None and store.method in cls.per_forward and (
                        store.attr in made_stale):
                    continue
                place = (getattr(store.node, "lineno", None),
                         getattr(store.node, "col_offset", None), store.attr, store.scope)
                if place in said:
                    continue
                bits = store.bits
                if bits & TYPE and not bits & RECORD or is_runner_copy(bits) or \
                        is_chosen_verdict(bits) or is_flag_table(bits) or \
                        is_named_swa_test(store):
                    continue  # a flag, a value a pool test picked, a table of flags: KVP002's
                if _empty_half(store):
                    continue  # no pool data: a decision reading it, or its twin, is the finding
                if bits & (STATE | CHOICE | KIND | GATED | SIZE):
                    if self.facts.guarding_gate(cls, store) is not None:
                        continue  # made under a reported gate: that gate's finding
                    template, subject = _variant(store)
                    root = _made_from_runner_object(store, cls, self.facts, self.options, seen)
                    if root == "" or _kept_by_design(store, cls, template, self.options):
                        continue  # (what a wrapper's forwarded translator made: SGLang's)
                    if root:
                        template, subject = KEPT_OBJECT_MADE, shown_sink(store)
                    # the class rewrite never swaps a runner-built object: it offers nothing here
                    scope = None if template is RUNNER_BUILT else cls.node
                    said.add(place)
                    yield self.report(store.node, None, scope, template, subject=subject,
                                      root=f"self.{root}")
            swap_points = {_where(s.value) for s in cls.stores if is_swap_point(s)}
            swap_points.update(_where(s.value) for s in kept)
            for read in cls.runner_reads:
                if _where(read) in swap_points:
                    continue  # the runner's pool taken as the swap point itself
                if type(read) is ast.Call:
                    yield self.report(read, None, cls.node, self.RUNNER_CALL_MESSAGE,
                                      call=_called(read.func))
                else:
                    yield self.report(read, None, cls.node, self.RUNNER_READ_MESSAGE)


def _called(func: ast.AST, limit: int = 24) -> str:
    """How a message names the function a call runs: its last name, cut to ``limit``."""
    name = last_name(func)
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"
