"""KVP001: SWA state cached in ``__init__`` from the active pool ``token_to_kv_pool``."""
from __future__ import annotations

from textwrap import dedent
from typing import Dict, Iterable, Optional

import libcst as cst

from lint_rules.options import Options
from lint_rules.rules._base import Invalid, Rule, Valid
from lint_rules.rules._facts import (
    ACTIVE_POOL,
    ClassInfo,
    is_self,
    is_swa_flag_expr,
    self_attr,
)

ALLOCATOR = "token_to_kv_pool_allocator"
CLEAN, SWA_STATE, POOL = 0, 1, 2  # taint levels, ordered so max() merges them
SWA_WORDS = ("swa", "layers_mapping", "translate_loc", "sliding")
TYPE_TESTS = ("isinstance", "issubclass", "type")


def _is_swa_word(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SWA_WORDS)


def _params(function: cst.FunctionDef) -> frozenset:
    """Parameter names of a method, ``self`` excepted: any of them may be the model runner."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return frozenset(p.name.value for p in every if p.name.value != "self")


def _plain_read(value: cst.BaseExpression) -> bool:
    """``x``, ``a.b`` or ``getattr(a, "b"[, default])``: a copy, not a derived value."""
    if isinstance(value, (cst.Name, cst.Attribute)):
        return True
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "getattr"
    )


def _string_arg(call: cst.Call, index: int) -> Optional[str]:
    if len(call.args) <= index or not isinstance(call.args[index].value, cst.SimpleString):
        return None
    return call.args[index].value.raw_value


class _Flow:
    """Forward taint over one function body: which locals / self attrs hold pool state."""

    def __init__(
        self, rule: Rule, cls: ClassInfo, helpers: "_Helpers", function: cst.FunctionDef
    ) -> None:
        self.rule = rule
        self.cls = cls
        self.helpers = helpers
        self.params = _params(function)
        self.allocators: set = set()  # local names bound to the runner's KV allocator
        self.env: Dict[str, int] = {}
        self.self_env: Dict[str, int] = {}
        self.returned = CLEAN

    # -- expressions ------------------------------------------------------------------------
    def taint(self, node: Optional[cst.BaseExpression]) -> int:
        if node is None:
            return CLEAN
        handler = getattr(self, "_taint_" + type(node).__name__, None)
        return handler(node) if handler else CLEAN

    def _is_runner(self, node: cst.BaseExpression) -> bool:
        """The model runner: a parameter (``model_runner``, ``runner``...) or ``self.*runner``."""
        if isinstance(node, cst.Name):
            return node.value in self.params or node.value.endswith("runner")
        return (self_attr(node) or "").endswith("runner")

    def _is_allocator(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.allocators
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == ALLOCATOR
            and (is_self(node.value) or self._is_runner(node.value))
        )

    def _taint_Name(self, node: cst.Name) -> int:
        return self.env.get(node.value, CLEAN)

    def _taint_Attribute(self, node: cst.Attribute) -> int:
        attr = node.attr.value
        if attr == ACTIVE_POOL and (is_self(node.value) or self._is_runner(node.value)):
            return POOL
        if is_self(node.value):
            return self.self_env.get(attr, CLEAN)
        base = self.taint(node.value)
        if base == SWA_STATE and not _is_swa_word(attr):
            return CLEAN  # metadata of SWA state (layout flags, dtype, shape), not the state
        return self._derived(base, attr)

    @staticmethod
    def _derived(base: int, attr: Optional[str]) -> int:
        # only SWA-specific reads of the pool count: geometry (page_size, dtype, ...) is shared
        if base == SWA_STATE or (base == POOL and attr is not None and _is_swa_word(attr)):
            return SWA_STATE
        return CLEAN

    def _taint_Subscript(self, node: cst.Subscript) -> int:
        return SWA_STATE if self.taint(node.value) == SWA_STATE else CLEAN

    def _taint_Call(self, node: cst.Call) -> int:
        func = node.func
        if isinstance(func, cst.Name) and node.args:
            first = self.taint(node.args[0].value)
            if func.value in TYPE_TESTS:
                return SWA_STATE if first else CLEAN
            if func.value == "getattr":
                name = _string_arg(node, 1)
                owner = node.args[0].value
                if name == ACTIVE_POOL and (is_self(owner) or self._is_runner(owner)):
                    return POOL
                return self._derived(first, name)
            if func.value == "bool":
                return SWA_STATE if first == SWA_STATE else CLEAN
        if isinstance(func, cst.Attribute):
            owner = func.value
            if func.attr.value == "get_kvcache" and self._is_allocator(owner):
                return POOL  # the allocator's pool, taken without looking at the active one
            if is_self(owner) or (isinstance(owner, cst.Name) and owner.value == self.cls.name):
                return self.helpers.level(func.attr.value)
            return self._derived(self.taint(owner), func.attr.value)
        return CLEAN

    def _taint_IfExp(self, node: cst.IfExp) -> int:
        test = SWA_STATE if self.taint(node.test) else CLEAN
        return max(test, self.taint(node.body), self.taint(node.orelse))

    def _taint_BooleanOperation(self, node: cst.BooleanOperation) -> int:
        return max(self.taint(node.left), self.taint(node.right))

    def _taint_UnaryOperation(self, node: cst.UnaryOperation) -> int:
        return SWA_STATE if self.taint(node.expression) == SWA_STATE else CLEAN

    def _taint_Comparison(self, node: cst.Comparison) -> int:
        parts = [node.left] + [target.comparator for target in node.comparisons]
        return SWA_STATE if any(self.taint(p) == SWA_STATE for p in parts) else CLEAN

    def _taint_Tuple(self, node: cst.Tuple) -> int:
        return max((self.taint(el.value) for el in node.elements), default=CLEAN)

    _taint_List = _taint_Tuple

    def _taint_NamedExpr(self, node: cst.NamedExpr) -> int:
        level = self.taint(node.value)
        self.bind(node.target, node.value, level, report=False)
        return level

    # -- statements -------------------------------------------------------------------------
    def run(self, statements: Iterable[cst.CSTNode], report: bool) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self.small(small, report)
            elif isinstance(statement, cst.If):
                self.branches(statement.body.body, statement.orelse, report)
            elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                continue  # nested scopes run later, not in __init__'s flow
            else:
                for suite in self._suites(statement):
                    self.run(suite, report)

    def branches(self, body, orelse, report: bool) -> None:
        before_env, before_self = dict(self.env), dict(self.self_env)
        self.run(body, report)
        taken_env, taken_self = self.env, self.self_env
        self.env, self.self_env = before_env, before_self
        if isinstance(orelse, cst.If):
            self.branches(orelse.body.body, orelse.orelse, report)
        elif orelse is not None:
            self.run(orelse.body.body, report)
        for name, level in taken_env.items():  # a name stays tainted if any branch taints it
            self.env[name] = max(level, self.env.get(name, CLEAN))
        for name, level in taken_self.items():
            self.self_env[name] = max(level, self.self_env.get(name, CLEAN))

    @staticmethod
    def _suites(statement: cst.CSTNode):
        for name in ("body", "orelse", "finalbody"):
            suite = getattr(statement, name, None)
            if isinstance(suite, cst.BaseSuite):
                yield suite.body
            elif suite is not None and hasattr(suite, "body"):
                yield suite.body.body
        for handler in getattr(statement, "handlers", ()):
            yield handler.body.body

    def small(self, node: cst.BaseSmallStatement, report: bool) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.assign(target.target, node.value, report)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self.assign(node.target, node.value, report)
        elif isinstance(node, cst.Return):
            self.returned = max(self.returned, self.taint(node.value))
        elif isinstance(node, cst.Expr):
            self.taint(node.value)  # walrus bindings

    def assign(self, target: cst.BaseExpression, value: cst.BaseExpression, report: bool) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(
                target.elements
            ):
                for t_el, v_el in zip(target.elements, value.elements):
                    self.assign(t_el.value, v_el.value, report)
                return
            level = self.taint(value)
            for element in target.elements:
                self.bind(element.value, value, level, report)
            return
        self.bind(target, value, self.taint(value), report)

    def bind(self, target, value, level: int, report: bool) -> None:
        if isinstance(target, cst.StarredElement):
            target = target.value
        if isinstance(target, cst.Name):
            self.env[target.value] = level
            if self._is_allocator(value):
                self.allocators.add(target.value)
            else:
                self.allocators.discard(target.value)
            return
        attr = self_attr(target)
        if attr is None:
            return
        self.self_env[attr] = level
        if not (report and level):
            return
        if attr == ACTIVE_POOL and level == POOL and _plain_read(value):
            return  # the swap point itself: a plain copy under the same name
        if is_swa_flag_expr(value):
            return  # an SWA type flag: KVP002 reports it with a stronger fix
        self.rule.report(target, attr=attr)


class _Helpers:
    """Taint of what same-class methods return, computed on first call (one level deep)."""

    def __init__(self, rule: Rule, cls: ClassInfo) -> None:
        self.rule = rule
        self.cls = cls
        self.levels: Dict[str, int] = {}

    def level(self, name: str) -> int:
        if name not in self.levels:
            self.levels[name] = CLEAN
            method = self.cls.methods.get(name)
            # a resolver that asks the allocator (like _resolve_swa_kv_pool) is the fix itself
            if method is not None and name != "__init__" and name not in self.cls.asks_allocator:
                flow = _Flow(self.rule, self.cls, _NoHelpers(), method)
                flow.run(method.body.body, report=False)
                self.levels[name] = flow.returned
        return self.levels[name]


class _NoHelpers:
    @staticmethod
    def level(name: str) -> int:
        return CLEAN


class StalePoolState(Rule):
    """Pool state cached in ``__init__`` from the active ``token_to_kv_pool`` goes stale.

    Draft workers swap ``token_to_kv_pool`` on every forward (FROZEN_KV MTP points the draft
    backend at the target's SWA pool; EAGLE drafts own a separate full pool), so anything a
    backend derives from that pool at construction describes the wrong pool later and SWA layers
    are handed full-pool indices: an illegal memory access in the attention kernel.

    Flagged, in ``__init__`` or a method only ``__init__`` calls, when stored on ``self``:
    the pool object itself under another attribute, an ``isinstance``/``type`` test on it, and
    SWA-specific reads from it (names containing ``swa``, ``layers_mapping``, ``translate_loc``,
    ``sliding``), through local aliases, ternaries, ``and``/``or``, tuple unpacking, ``getattr``
    and same-class helpers that return such values; the runner may be any parameter
    (``model_runner``, ``runner``...). The allocator's pool
    (``token_to_kv_pool_allocator.get_kvcache()``) taken in ``__init__`` outside a resolver
    counts too: it ignores the active pool, which is wrong for an EAGLE draft that owns a full
    pool (the original upstream bug). Geometry reads (``page_size``, ``dtype``,
    ``head_dim``, buffers' dtypes...) are not flagged: both pools share them, and the rule must
    never fire on correct code. Allowed: the swap point
    ``self.token_to_kv_pool = model_runner.token_to_kv_pool``, and values returned by a
    resolver method that consults ``token_to_kv_pool_allocator`` / ``get_kvcache()`` (like
    upstream ``_resolve_swa_kv_pool``) and anything derived from them. An SWA type flag
    (``self.flag = isinstance(pool, SWAKVPool)``) is left to KVP002.
    """

    CODE = "KVP001"
    NAME = "stale-pool-state"
    MESSAGE = (
        "self.{attr} caches state derived from token_to_kv_pool in __init__; the pool is "
        "swapped per forward under FROZEN_KV MTP / EAGLE drafts, so it goes stale and SWA "
        "layers get full-pool indices (illegal memory access) — resolve via "
        "token_to_kv_pool_allocator.get_kvcache() (_resolve_swa_kv_pool) or read it at call time"
    )

    def finish(self) -> None:
        for cls in self.ctx.classes:
            if cls.is_backend and "__init__" in cls.methods:
                self._check_class(cls)

    def _check_class(self, cls: ClassInfo) -> None:
        helpers = _Helpers(self, cls)
        init = _Flow(self, cls, helpers, cls.methods["__init__"])
        init.run(cls.methods["__init__"].body.body, report=True)
        for name in self._init_only_helpers(cls):
            helper = _Flow(self, cls, helpers, cls.methods[name])
            helper.run(cls.methods[name].body.body, report=True)

    def _init_only_helpers(self, cls: ClassInfo):
        """Methods called as ``self.m(...)`` from ``__init__`` and referenced nowhere else."""
        for name in cls.init_calls:
            if name == "__init__" or name not in cls.methods:
                continue
            uses = [use for use in self.ctx.attr_uses.get(name, ()) if use.cls is cls]
            if all(use.role == "call" and use.method == "__init__" for use in uses):
                yield name


StalePoolState.VALID = (
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
                def forward_decode(self, q, k, v, layer, forward_batch):
                    # read at call time: always the pool of this forward
                    pool = forward_batch.token_to_kv_pool
                    return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)


            class PoolStats:  # not an attention backend
                def __init__(self, model_runner):
                    self.pool = model_runner.token_to_kv_pool
            """
        )
    ),
)

StalePoolState.INVALID = (
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
        expected=(
            (4, "KVP001"),
            (5, "KVP001"),
            (6, "KVP001"),
            (10, "KVP001"),
            (11, "KVP001"),
            (12, "KVP001"),
        ),
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
)
