"""The unsafe fix: a backend class with KVP001-KVP003 hazards rewritten to the resolver pattern.

Applied only with ``--unsafe-fixes``: it changes behaviour on purpose (that is the bug fix).
Our own codemod of design.md §3's semantics, on libcst so untouched code is re-emitted byte for
byte. For the class (and the same-file base that stores its flag):

* the stored SWA type flag ``self.<flag> = <test of the active pool>`` becomes
  ``self.<pool_attr> = self._resolve_swa_kv_pool(<runner>)`` (flags that test the pool
  differently, or a copy of the runner's model flag ``is_hybrid_swa``, which no pool test is
  proven to equal for a plain target, decline the class);
* a static ``_resolve_swa_kv_pool(model_runner)`` is added when the class has none: the active
  pool when the class's own SWA test accepts it, ``None`` for a draft worker that is not
  FROZEN_KV MTP (it owns its pool), else the allocator's pool (``get_kvcache()``, tolerating
  allocators without it) when the test accepts that;
* ``<flag>`` becomes a read-only property ``self.<pool_attr> is not None`` (readers in other
  modules keep working, and the flag can never disagree with the pool);
* every gate on a flag becomes the pool test, and under a gate that the pool exists, reads of
  the active pool's members (``self.token_to_kv_pool.<x>``) read the resolved pool.

The pool is resolved once, at the point the flag was computed: the resolved pool is the one
every launch reads (a FROZEN_KV draft's target view is its allocator's pool). Whatever this
cannot prove safe returns ``None``: the module must compile and the same-file lint must report
no KVP001-KVP003 in the rewritten classes, otherwise the finding stays.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from lint_rules.fixes.plan import ACTIVE_POOL, ALLOCATOR, ELSEWHERE, RESOLVER, Declined, check
from lint_rules.options import Options
from lint_rules.rules._facts import FileFacts, Store, analyse, imported_names

HAZARDS = frozenset({"KVP001", "KVP002", "KVP003"})
# The pool test used when the flag's own test cannot be lifted onto a pool (e.g. it tested the
# allocator's type): SGLang's SWA pool class, imported where the module lacks it.
DEFAULT_SWA_CLASS = ("sglang.srt.mem_cache.swa_memory_pool", "SWAKVPool")
_PLACEHOLDER = "__poolguard_swa_test__"

_RESOLVER_TEXT = f'''\
@staticmethod
def {RESOLVER}(model_runner):
    """The SWA pool this backend's kernels translate against, or None.

{{i}}The active pool when it is an SWA pool. A draft worker that owns its KV pool
{{i}}(EAGLE) must not borrow the target's full->SWA mapping, so None. A FROZEN_KV
{{i}}MTP draft reads the target's KV: it takes the allocator's SWA pool.
{{i}}"""
    pool = model_runner.token_to_kv_pool
    if {_PLACEHOLDER}(pool):
        return pool
    spec = model_runner.spec_algorithm
    if model_runner.is_draft_worker and not spec.is_frozen_kv_mtp():
        return None
    allocator = model_runner.token_to_kv_pool_allocator
    # get_kvcache() is not offered by every allocator.
    get_kvcache = getattr(allocator, "get_kvcache", None)
    pool = get_kvcache() if get_kvcache is not None else None
    if {_PLACEHOLDER}(pool):
        return pool
    return None
'''

# A copy of the runner's model flag keeps the model's value; a FROZEN_KV draft whose
# resolved pool is not its own (the target's, borrowed through the allocator) is SWA too.
_MODEL_FLAG_TEXT = """\
self.{attr} = {runner}.{flag} or (
{i}{runner}.is_draft_worker
{i}and self.{pool} is not None
{i}and self.{pool} is not {runner}.{active}
)
"""

_PROPERTY_TEXT = '''\
@property
def {flag}(self) -> bool:
    """Derived from the resolved SWA pool on every read: it cannot go stale."""
    return self.{pool} is not None
'''


@dataclass(frozen=True)
class _Plan:
    """What to rewrite, decided from the lint's own facts (one source of truth)."""

    unit: FrozenSet[str]  # classes whose gates are rewritten
    enclosing: FrozenSet[str]  # names of the classes and functions around them
    pool_attr: str  # the resolved pool's attribute (configured, or the one the class resolves)
    owner: str  # the class that stores the type flag (gets resolver and property)
    method: str  # the method holding the flag store
    runner: str  # that method's model-runner parameter
    stores: tuple  # (attr) of the type-flag stores to replace or drop
    flags: FrozenSet[str]  # every flag name whose gates become the pool test
    test: Optional[cst.BaseExpression]  # the flag's own SWA test over a placeholder pool
    add_resolver: bool
    resolve: bool  # the owner does not store the pool yet: the plan resolves it
    # index (in ast statements of the method body) of the statement the resolution goes before
    resolve_at: int
    dead: FrozenSet[str]  # pool aliases only the dropped stores read
    copies: tuple = ()  # (attr, runner flag): copies of the runner's model flag, kept


def resolver_fix(module: cst.Module, class_name: str, codes: frozenset,
                 options: Options, heirs=None) -> Optional[cst.Module]:
    """``module`` with ``class_name`` rewritten to the resolver pattern, or None when that
    cannot be done safely (the findings then stay, unfixed); ``module`` itself when the file
    shows nothing left to fix in the class. ``codes``: the KVP codes found
    in the class; without KVP001-KVP003 there is nothing for this fix to do. ``heirs``
    (package mode): ``heirs(class_names, attrs)`` says whether a subclass in another module
    may assign one of ``attrs``."""
    if not HAZARDS & set(codes):
        return None
    try:
        return rewrite(module, class_name, options, heirs)
    except Declined:
        return None


def decline_reason(module: cst.Module, class_name: str, codes: frozenset,
                   options: Options, heirs=None) -> str:
    """Why ``resolver_fix`` returned None for ``class_name`` (one line for the CLI)."""
    if not HAZARDS & set(codes):
        return "no KVP001-KVP003 hazard for the codemod to resolve"
    try:
        if rewrite(module, class_name, options, heirs) is module:
            return ELSEWHERE
    except Declined as why:
        return str(why)
    return "the rewrite did not verify"


def rewrite(module: cst.Module, class_name: str, options: Options, heirs=None) -> cst.Module:
    """``resolver_fix`` that says why it declines (raises ``Declined``)."""
    try:
        return _rewrite(module, class_name, options, heirs)
    except Declined:
        respelt = _respelt_names(module)
        if respelt is None:
            raise
        # the facts name a flag as Python reads it (NFKC), libcst as it is spelt: when the
        # file spelt as Python reads it would be rewritten, the spelling is why it is not
        try:
            accepted = _rewrite(respelt[1], class_name, options, heirs) is not respelt[1]
        except Declined:
            accepted = False
        if not accepted:
            raise
        spelt, read = respelt[0]
        raise Declined(f"the name {ascii(spelt)} is {read} to Python (NFKC) but not to the "
                       f"codemod, which matches names as spelt: spell it {read}") from None


def _respelt_names(module: cst.Module) -> Optional[tuple]:
    """``((spelt, read), module)``: the first identifier the file spells otherwise than Python
    reads it (NFKC: a fullwidth ``\uff53`` is ``s``, the ligature ``\ufb01`` is ``fi``) and the
    module with every such identifier spelt as read; None when there is none."""
    if module.code.isascii():
        return None
    found: List[tuple] = []

    class _Respell(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            read = unicodedata.normalize("NFKC", updated.value)
            if read == updated.value:
                return updated
            found.append((updated.value, read))
            return updated.with_changes(value=read)

    respelt = module.visit(_Respell())
    return (found[0], respelt) if found else None


def _rewrite(module: cst.Module, class_name: str, options: Options, heirs=None) -> cst.Module:
    try:
        tree = imported_names(ast.parse(module.code))  # as the lint read it
    except (SyntaxError, ValueError) as err:
        raise Declined(f"does not parse: {err}") from None
    facts = analyse(tree, options)
    plan = _plan(facts, class_name, options, module)
    if plan is None:
        return module  # nothing left to fix in this class
    kept = sorted(set(plan.stores) | plan.flags)
    if heirs is not None and kept and heirs(sorted(plan.unit), kept):
        # its write would hit a property without a setter (AttributeError) or be ignored
        raise Declined(f"a subclass in another module may assign "
                       f"{', '.join('self.' + name for name in kept)}, which the rewrite makes "
                       f"a read-only view of the pool")
    new = module.visit(_Rewrite(plan, plan.pool_attr, module.config_for_parsing))
    if plan.add_resolver and plan.test is None:
        new = _add_import(new)
    _verify(new, plan, options)
    return new


# -- planning -----------------------------------------------------------------------------------
def _plan(facts: FileFacts, name: str, options: Options, module: cst.Module) -> Optional[_Plan]:
    found = check(facts, name, options, lambda: bool(_class_hazards(module.code, {name}, options)))
    if found is None:
        return None
    owner, own, method, pool_attr = found.owner, list(found.own), found.method, found.pool_attr
    typed = [s.attr for s in own]
    test = _one_test(module, owner.name, method, typed)
    unit = frozenset({found.cls.name, owner.name})
    provides = pool_attr is not None
    return _Plan(unit, _enclosing(facts.tree, unit), pool_attr or options.pool_attr,
                 owner.name, method, found.runner, tuple(typed), found.flags, test,
                 not found.has_resolver and not provides, not provides, found.at,
                 _unused_aliases(owner.methods[method], own) if own else frozenset(),
                 found.copies)


def _enclosing(tree: ast.AST, unit: FrozenSet[str]) -> FrozenSet[str]:
    """Names of the definitions that contain a class of ``unit`` (rarely any)."""
    found = set()

    def walk(node: ast.AST, outer: tuple) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and child.name in unit:
                found.update(outer)
            named = isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            walk(child, outer + (child.name,) if named else outer)

    walk(tree, ())
    return frozenset(found)


# -- lifting the flag's own SWA test onto a pool -------------------------------------------------
def _one_test(module: cst.Module, owner: str, method: str, attrs: List[str]
              ) -> Optional[cst.BaseExpression]:
    """The SWA test every type flag of ``attrs`` makes (None: none, or the allocator's type).
    Flags that test the pool differently (``SWAKVPool`` and ``BaseSWAKVPool``, one with a
    layer count) cannot all become the one resolved pool: declined."""
    tests = [_lift_test(module, owner, method, attr) for attr in attrs]
    texts = {_text(t) for t in tests}
    if len(texts) > 1:
        other = next(a for a, t in zip(attrs, tests) if _text(t) != _text(tests[0]))
        raise Declined(f"self.{attrs[0]} and self.{other} test the pool differently: one"
                       " resolved pool cannot stand for both")
    return tests[0] if tests else None


def _text(node: Optional[cst.CSTNode]) -> Optional[str]:
    return cst.Module([]).code_for_node(node) if node is not None else None


def _lift_test(module: cst.Module, owner: str, method: str, attr: str
               ) -> Optional[cst.BaseExpression]:
    """The flag's value with its one pool expression replaced by a placeholder name, or None
    when it tests the allocator instead (the default pool test stands in). Declined when the
    value also reads anything but module-level names: a condition the pool cannot carry."""
    function = _find_method(module, owner, method)
    value = _store_value(function, attr)
    pools = _PoolExprs(_pool_aliases(function)).find(value)
    if len({cst.Module([]).code_for_node(p) for p in pools}) > 1:
        raise Declined(f"self.{attr} tests more than one pool expression")
    subject = pools[0] if pools else _allocator_expr(value)
    if subject is None:
        raise Declined(f"self.{attr} tests neither the active pool nor the allocator")
    lifted = value.visit(_Replace(subject, cst.Name(_PLACEHOLDER)))
    used = {n.value for n in _names(lifted)} - {_PLACEHOLDER}
    if used & (_local_names(function) | {"self"}):
        raise Declined(f"self.{attr} also depends on {sorted(used & _local_names(function))}"
                       " or on self: the pool test alone would drop that")
    if not pools:
        return None
    # One line, whatever the layout of the original: it is spliced into new code.
    text = ast.unparse(ast.parse(cst.Module([]).code_for_node(lifted).strip(), mode="eval"))
    return cst.parse_expression(text)


def _allocator_expr(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    found = []

    class _Allocators(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if node.attr.value == ALLOCATOR and isinstance(node.value, cst.Name):
                found.append(node)
                return False
            return True

    value.visit(_Allocators())
    codes = {cst.Module([]).code_for_node(n) for n in found}
    return found[0] if len(codes) == 1 else None


def _find_method(module: cst.Module, owner: str, method: str) -> cst.FunctionDef:
    finder = _Finder(owner, method)
    module.visit(finder)
    if finder.found is None and "." in method:  # Meta.__call__, a property's setter
        raise Declined(f"the store stands in {method}(), which the class rewrite cannot reach")
    if finder.found is None:
        raise Declined(f"{owner}.{method} not found")
    return finder.found


class _Finder(cst.CSTVisitor):
    def __init__(self, owner: str, method: str) -> None:
        self.owner, self.method, self.found = owner, method, None
        self.stack: List[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.stack and self.stack[-1] == self.owner and node.name.value == self.method:
            self.found = self.found or node
        return not self.stack  # a method holds no class we look for; a function may


def _flag_assign(statement: cst.CSTNode, attr: str) -> Optional[cst.BaseSmallStatement]:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        target = small.target
    else:
        return None
    return small if _is_self_attr(target, {attr}) else None


def _store_value(function: cst.FunctionDef, attr: str) -> cst.BaseExpression:
    for statement in function.body.body:
        small = _flag_assign(statement, attr)
        if small is not None:
            return small.value
    raise Declined(f"self.{attr} = ... is not a statement of its own")


def _is_self_attr(node: cst.CSTNode, names) -> bool:
    return (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
            and node.value.value == "self" and node.attr.value in names)


def _dead_alias(statement: cst.CSTNode, names: FrozenSet[str]) -> bool:
    """``pool = runner.token_to_kv_pool`` whose only reader was a dropped flag store."""
    if not names or not isinstance(statement, cst.SimpleStatementLine):
        return False
    small = statement.body[0] if len(statement.body) == 1 else None
    return (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value in names and _is_active_pool(small.value))


def _unused_aliases(method: ast.AST, stores: List[Store]) -> FrozenSet[str]:
    """Locals of ``method`` read only by the flag stores that the rewrite drops."""
    dropped = {id(n) for s in stores for n in ast.walk(s.statement)}
    read = [n for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    in_stores = {n.id for n in read if id(n) in dropped}
    elsewhere = {n.id for n in read if id(n) not in dropped}
    return frozenset(in_stores - elsewhere)


def _pool_aliases(function: cst.FunctionDef) -> set:
    """Locals assigned once, at method level, to ``<x>.token_to_kv_pool``."""
    counts: Dict[str, int] = {}
    pools = set()
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name):
                        counts[target.value] = counts.get(target.value, 0) + 1
                        if _is_active_pool(small.value):
                            pools.add(target.value)
    return {name for name in pools if counts[name] == 1}


def _is_active_pool(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == ACTIVE_POOL and isinstance(
        node.value, cst.Name)


class _PoolExprs(cst.CSTVisitor):
    def __init__(self, aliases: set) -> None:
        self.aliases, self.found = aliases, []

    def find(self, node: cst.CSTNode) -> list:
        node.visit(self)
        return self.found

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if _is_active_pool(node):
            self.found.append(node)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.aliases:
            self.found.append(node)


class _Replace(cst.CSTTransformer):
    def __init__(self, old: cst.CSTNode, new: cst.CSTNode) -> None:
        self.old, self.new = old, new

    def on_leave(self, original, updated):
        if isinstance(original, cst.BaseExpression) and original.deep_equals(self.old):
            return self.new
        return updated


def _names(node: cst.CSTNode) -> List[cst.Name]:
    found: List[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # the member name after the dot is not a variable
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)  # keyword names are not variables either
            return False

    node.visit(_Names())
    return found


def _local_names(function: cst.FunctionDef) -> set:
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params,
                                    *params.kwonly_params)}
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            names.add(extra.name.value)

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            names.update(n.value for n in _names(node.target))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            names.update(n.value for n in _names(node.target))

    function.body.visit(_Targets())
    return names


# -- the rewrite --------------------------------------------------------------------------------
def _pool_test(pool_attr: str, is_none: bool, parens_of: cst.CSTNode) -> cst.Comparison:
    operator = cst.Is() if is_none else cst.IsNot()
    return cst.Comparison(
        left=cst.Attribute(cst.Name("self"), cst.Name(pool_attr)),
        comparisons=[cst.ComparisonTarget(operator, cst.Name("None"))],
        lpar=getattr(parens_of, "lpar", ()), rpar=getattr(parens_of, "rpar", ()),
    )


class _PoolReads(cst.CSTTransformer):
    """Under a gate that the resolved pool exists: ``self.token_to_kv_pool.<x>`` (or the
    runner's) reads the resolved pool's ``<x>``."""

    def __init__(self, pool_attr: str) -> None:
        self.pool_attr = pool_attr

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        value = updated.value
        if _is_active_pool(value) and (
            value.value.value == "self" or "runner" in value.value.value
        ):
            pool = cst.Attribute(cst.Name("self"), cst.Name(self.pool_attr),
                                 lpar=value.lpar, rpar=value.rpar)
            return updated.with_changes(value=pool)
        return updated


class _Rewrite(cst.CSTTransformer):
    """Applies a ``_Plan`` to the classes it names (nested classes are left alone)."""

    def __init__(self, plan: _Plan, pool_attr: str, config) -> None:
        self.plan, self.pool_attr, self.config = plan, pool_attr, config
        self.stack: List[Optional[str]] = []  # enclosing classes
        self.scopes: List[str] = []  # "class" / "def", innermost last

    # where we are; only the rewritten classes (and what encloses them) are walked
    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        self.scopes.append("class")
        return node.name.value in self.plan.unit | self.plan.enclosing

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scopes.append("def")
        return self._active() or node.name.value in self.plan.enclosing

    def _active(self) -> bool:
        return bool(self.stack) and self.stack[-1] in self.plan.unit

    # gates
    def _is_flag(self, node: cst.CSTNode) -> bool:
        return _is_self_attr(node, self.plan.flags)

    def _gate(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if self._active() and self._is_flag(node):
            return _pool_test(self.pool_attr, False, node)
        return node

    def _exists(self, node: cst.BaseExpression) -> bool:
        """The expression is true only when the resolved pool exists (an ``and`` chain)."""
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
            return self._exists(node.left) or self._exists(node.right)
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            target = node.comparisons[0]
            return (_is_self_attr(node.left, {self.pool_attr}) and isinstance(
                target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name)
                and target.comparator.value == "None")
        return False

    def leave_UnaryOperation(self, original, updated):
        if self._active() and isinstance(updated.operator, cst.Not) and self._is_flag(
                updated.expression):
            return _pool_test(self.pool_attr, True, updated)
        return updated

    def leave_BooleanOperation(self, original, updated):
        updated = updated.with_changes(left=self._gate(updated.left),
                                       right=self._gate(updated.right))
        left = updated.left
        if isinstance(left, cst.Comparison) and self._exists(left) and left.deep_equals(
                updated.right):
            return left  # two flags that were one fact: `pool is not None and` itself
        if self._active() and isinstance(updated.operator, cst.And) and self._exists(
                updated.left):
            updated = updated.with_changes(right=updated.right.visit(_PoolReads(self.pool_attr)))
        return updated

    def leave_If(self, original, updated):
        """The gate, and the reads of the pool in the branch it guards (``if`` statement or
        ternary alike: both keep their test in ``test`` and the guarded branch in ``body``)."""
        updated = updated.with_changes(test=self._gate(updated.test))
        if self._active() and self._exists(updated.test):
            updated = updated.with_changes(body=updated.body.visit(_PoolReads(self.pool_attr)))
        return updated

    leave_IfExp = leave_If

    def leave_While(self, original, updated):
        return updated.with_changes(test=self._gate(updated.test))

    def leave_Assert(self, original, updated):
        return updated.with_changes(test=self._gate(updated.test))

    def leave_Assign(self, original, updated):  # an alias of the flag: `swa = self.flag`
        if len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Name):
            return updated.with_changes(value=self._gate(updated.value))
        return updated

    # the flag store, the resolver and the property
    def leave_FunctionDef(self, original, updated):
        self.scopes.pop()
        method = self.scopes[-1:] == ["class"] and self.stack[-1] == self.plan.owner
        if not method or original.name.value != self.plan.method or not self.plan.stores:
            return updated
        return updated.with_changes(body=updated.body.with_changes(
            body=self._replace_stores(updated.body.body)))

    def _replace_stores(self, statements: Sequence[cst.BaseStatement]) -> list:
        """Drop the flag stores; the resolution goes before the statement at ``resolve_at``
        (counted in ast statements), or in its place when that is a dropped store."""
        out, count = [], 0
        for statement in statements:
            here = count
            count += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            store = any(_flag_assign(statement, a) for a in self.plan.stores)
            statement = self._keep_model_flag(statement)
            if self.plan.resolve and here == self.plan.resolve_at:
                if store:  # it takes the store's place and comments
                    out.append(statement.with_changes(body=[self._resolution()]))
                    continue
                out.append(cst.SimpleStatementLine([self._resolution()]))
            if _dead_alias(statement, self.plan.dead):
                continue
            if not store:
                out.append(statement)
        return out or [cst.SimpleStatementLine([cst.Pass()])]

    def _keep_model_flag(self, statement: cst.BaseStatement) -> cst.BaseStatement:
        """``self.<copy> = <runner>.<flag>`` keeps the model's flag and is also true where the
        resolved pool is a FROZEN_KV draft's borrow (a draft whose pool is not the one
        resolved): unchanged for a target, a non-SWA model and an EAGLE draft."""
        for attr, flag in self.plan.copies:
            small = _flag_assign(statement, attr)
            if small is not None:
                runner, pool = self.plan.runner, self.pool_attr
                indent, newline = self.config.default_indent, self.config.default_newline
                text = _MODEL_FLAG_TEXT.format(attr=attr, flag=flag, runner=runner, pool=pool,
                                               active=ACTIVE_POOL, i=indent)
                kept = cst.parse_statement(text.replace("\n", newline), self.config)
                return statement.with_changes(body=[small.with_changes(
                    value=kept.body[0].value)])
        return statement

    def _resolution(self) -> cst.Assign:
        call = cst.Call(cst.Attribute(cst.Name("self"), cst.Name(RESOLVER)),
                        [cst.Arg(cst.Name(self.plan.runner))])
        target = cst.Attribute(cst.Name("self"), cst.Name(self.pool_attr))
        return cst.Assign([cst.AssignTarget(target)], call)

    def leave_ClassDef(self, original, updated):
        name = self.stack.pop()
        self.scopes.pop()
        if name != self.plan.owner:
            return updated
        added = []
        if self.plan.add_resolver:
            added.append(self._resolver())
        for flag in self.plan.stores:
            text = _PROPERTY_TEXT.format(flag=flag, pool=self.pool_attr).replace(
                "\n", self.config.default_newline)
            added.append(cst.parse_statement(text, self.config))
        body = list(updated.body.body)
        at = next((i + 1 for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)
                   and s.name.value == self.plan.method), len(body))
        blank = cst.EmptyLine(indent=False)
        added = [node.with_changes(leading_lines=[blank]) for node in added]
        return updated.with_changes(body=updated.body.with_changes(
            body=body[:at] + added + body[at:]))

    def _resolver(self) -> cst.FunctionDef:
        test = self.plan.test
        if test is None:
            isinstance_call = f"isinstance({_PLACEHOLDER}, {DEFAULT_SWA_CLASS[1]})"
            test = cst.parse_expression(isinstance_call)
        indent = self.config.default_indent * (len(self.scopes) + 2)
        text = _RESOLVER_TEXT.replace("{i}", indent).replace("\n", self.config.default_newline)
        function = cst.parse_statement(text, self.config)
        return function.visit(_ApplyTest(test))


class _ApplyTest(cst.CSTTransformer):
    """``__poolguard_swa_test__(x)`` in the template becomes the SWA test applied to ``x``."""

    def __init__(self, test: cst.BaseExpression) -> None:
        self.test = test

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value == _PLACEHOLDER:
            variable = updated.args[0].value
            return self.test.visit(_Replace(cst.Name(_PLACEHOLDER), variable))
        return updated


def _add_import(module: cst.Module) -> cst.Module:
    """The default SWA class imported, unless the module already binds its name (a try/except
    fallback for older releases included): that binding is the file's import contract."""
    if DEFAULT_SWA_CLASS[1] in _module_names(ast.parse(module.code).body):
        return module
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, *DEFAULT_SWA_CLASS)
    return module.visit(AddImportsVisitor(context))


def _module_names(body: list) -> set:
    """Names module-level statements bind, through if/try/with blocks (not defs or classes)."""
    names: set = set()
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = getattr(statement, "targets", None) or [statement.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(statement, (ast.If, ast.Try, ast.With)):
            blocks = [getattr(statement, key, []) for key in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(statement, "handlers", [])]
            for block in blocks:
                names |= _module_names(block)
    return names


# -- verification -------------------------------------------------------------------------------
def _verify(new: cst.Module, plan: _Plan, options: Options) -> None:
    """Compiles, and the same-file lint finds no KVP001-KVP003 in the rewritten classes."""
    code = new.code
    try:
        compile(ast.parse(code), "<resolver fix>", "exec")
    except (SyntaxError, ValueError) as err:
        raise Declined(f"the rewrite does not compile: {err}") from None
    # a kept copy of the runner's model flag stays a finding by design: its gates are the
    # model's (the lint cannot tell the borrow ORed into it)
    kept = [re.compile(rf"\bself\.{attr}\b") for attr, _ in plan.copies]
    left = [f for f in _class_hazards(code, plan.unit, options)
            if not any(name.search(f.message) for name in kept)]
    if left:
        first = left[0]
        raise Declined(f"line {first.line}: {first.code} {first.message} remains")


def _class_hazards(code: str, names, options: Options) -> list:
    """KVP001-KVP003 findings of the same-file lint inside the classes ``names``."""
    from lint_rules.engine import lint_source  # the engine imports the rules, not the fixes

    spans = [(n.lineno, n.end_lineno) for n in ast.walk(ast.parse(code))
             if isinstance(n, ast.ClassDef) and n.name in names]
    return [f for f in lint_source(code, codes=HAZARDS, options=options)
            if f.code in HAZARDS and any(a <= f.line <= b for a, b in spans)]
