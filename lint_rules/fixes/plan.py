"""What the resolver codemod can decide from the lint's ``ast`` facts alone, before any rewrite.

``check`` runs every test of ``lint_rules.fixes.resolver``'s planning that needs no libcst: the
codemod plans from it, and the engine asks it before it lists the unsafe fix on a finding, so a
fix is advertised (text ``[*]``, JSON, SARIF) only where the codemod would try it. What only the
rewrite can tell (lifting the flag's test, the lint of the result) may still decline it then.
"""
from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Callable, FrozenSet, List, Optional

from lint_rules.options import Options
from lint_rules.rules._facts import ClassFacts, FileFacts, Store, renamed_receiver
from lint_rules.rules._flow import CHOICE, GATED, RECORD, RUNNER, TYPE, nodes_under
from lint_rules.rules._vocab import ACTIVE_POOL, ALLOCATOR

RESOLVER = "_resolve_swa_kv_pool"


@dataclass(frozen=True)
class Checked:
    """The class, the family member storing the type flag, and where the pool is resolved."""

    cls: ClassFacts
    owner: ClassFacts
    own: tuple  # the owner's type-flag stores, in source order (the ones the rewrite drops)
    flags: FrozenSet[str]  # every flag whose gates become the pool test
    method: str
    pool_attr: Optional[str]  # the attribute the class already resolves the pool into
    runner: str
    has_resolver: bool
    at: int  # index of the statement of ``method`` the resolution goes before
    # (attr, runner flag) of each copy of the runner's model flag: it keeps the model's value
    # and is also true for a FROZEN_KV draft that borrows the target's SWA pool
    copies: tuple = ()


def check(facts: FileFacts, name: str, options: Options,
          hazards: Callable[[], bool]) -> Optional[Checked]:
    """The plan's facts for class ``name``, None when it has no SWA flag and ``hazards()`` says
    nothing else is to fix; raises ``Declined`` (with why) when the codemod would refuse it."""
    classes = [c for c in facts.classes if c.name == name]
    if len(classes) != 1:
        raise Declined(f"{len(classes)} backend classes named {name}")
    cls = classes[0]
    if renamed_receiver(cls.family):
        raise Declined("a method names its object otherwise than self (the rewrite edits "
                       "self.<attr>)")
    flags = _gated_flags(facts, cls)
    stores = [s for c in cls.family for s in c.stores
              if s.sink and not s.resolver and s.bits & TYPE and not s.bits & (RECORD | GATED)]
    if not stores and not flags:
        if hazards():
            raise Declined("a hazard that is not an SWA flag (e.g. a cached pool)")
        return None
    owner = _owner(cls, stores)
    flags |= _gated_flags(facts, owner)
    asked = {id(t) for t in stores}
    own = sorted((s for s in owner.stores if id(s) in asked), key=lambda s: s.node.lineno)
    # the runner's model flag copied onto the backend (`self.is_hybrid_swa = runner.is_hybrid_swa`)
    copies = _model_copies(owner, flags)
    pool_attr = _pool_attr(facts, owner, options)
    if copies:
        _check_copies(owner, own, copies, pool_attr)
    _check_stores(facts, owner, own + copies)
    method = own[0].method if own else "__init__"
    provides = pool_attr is not None
    if not own and not provides:
        raise Declined("no SWA flag stored in this file to resolve the pool from")
    flags -= {s.attr for s in copies}  # the model's flag: its gates stay as they are
    _check_flag_kinds(facts, cls, flags - {s.attr for s in own})
    runner = _runner_param(owner.methods.get(method)) if not provides else ""
    if not provides and runner is None:
        raise Declined(f"{method}() takes no model runner to resolve the pool from")
    all_flags = frozenset(flags | {s.attr for s in own})
    clash = facts.pool_attr_clash(owner, pool_attr or options.pool_attr, all_flags)
    if clash:
        raise Declined(clash)
    has_resolver = any(RESOLVER in c.methods for c in owner.family)
    if has_resolver and not provides:
        raise Declined(f"the class has a {RESOLVER} but keeps no pool from it")
    at = _resolve_at(owner, method, own + copies, all_flags) if own else 0
    if provides and own and not _resolved_before(owner, method, pool_attr, at):
        raise Declined(f"a flag is read before self.{pool_attr} is set")
    return Checked(cls, owner, tuple(own), all_flags, method, pool_attr, runner or "",
                   has_resolver, at, tuple(_copied(s) for s in copies))


ELSEWHERE = "its findings come from other modules; the codemod reads this file alone"


def refusal(facts: FileFacts, name: str, options: Options,
            hazards: Callable[[], bool]) -> Optional[str]:
    """Why the codemod would leave class ``name`` as it is, or None when it would try it."""
    try:
        if check(facts, name, options, hazards) is None:
            return ELSEWHERE
    except Declined as why:
        return str(why)
    return None


class Declined(Exception):
    """The class cannot be rewritten safely; the message says why (for tests and logs)."""


def _pool_attr(facts: FileFacts, owner: ClassFacts, options: Options) -> Optional[str]:
    """The attribute the class already resolves the pool into: the configured one, else the
    one assigned from a same-class method that consults the allocator (a resolver)."""
    if facts.provides_pool(owner):
        return options.pool_attr
    resolvers = {name for c in owner.family for name, fn in c.methods.items()
                 if name != "__init__" and _names_allocator(fn)}
    found = {s.attr for c in owner.family for s in c.stores
             if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
             and s.value.func.attr in resolvers}
    if len(found) > 1:
        raise Declined(f"the pool is resolved into several attributes: {sorted(found)}")
    return found.pop() if found else None


# method node -> whether it names the allocator: asked for each class the codemod checks
_ALLOCATOR_NAMED: "weakref.WeakKeyDictionary[ast.AST, bool]" = weakref.WeakKeyDictionary()


def _names_allocator(fn: ast.AST) -> bool:
    """The allocator's name in a name, attribute or constant of ``fn`` (what ``ast.dump(fn)``
    would show, read without building the dump)."""
    found = _ALLOCATOR_NAMED.get(fn)
    if found is None:
        found = _ALLOCATOR_NAMED[fn] = any(map(_spells_allocator, nodes_under(fn)))
    return found


def _spells_allocator(node: ast.AST) -> bool:
    """A field of ``node`` that is no node (an identifier, a constant) shows the allocator's
    name as ``ast.dump`` writes it (its ``repr``)."""
    for field in node._fields:
        value = getattr(node, field, None)
        for item in value if type(value) is list else (value,):
            if not isinstance(item, ast.AST) and ALLOCATOR in repr(item):
                return True
    return False


def _model_copies(owner: ClassFacts, flags: set) -> List[Store]:
    return sorted((s for s in owner.stores if s.attr in flags and s.sink and not s.resolver
                   and s.bits & RUNNER and not s.bits & (TYPE | CHOICE | GATED | RECORD)),
                  key=lambda s: s.node.lineno)


def _copied(store: Store) -> tuple:
    """(attr, the runner's flag it copies) of ``self.<attr> = <runner>.<flag>``."""
    return store.attr, store.value.attr


def _check_copies(owner: ClassFacts, own: List[Store], copies: List[Store],
                  pool_attr: Optional[str]) -> None:
    """A copy of the runner's model flag stays the model's flag (never a pool test: the
    model's flag is true for pools no type test is proven to accept, DeepSeek-V4's
    BaseSWAKVPool); the rewrite only ORs in a FROZEN_KV draft's borrowed pool, so it needs a
    pool-test flag of its own to resolve the pool from, the plain copy, and no state cached
    under the copy's gates (that state would stay the draft's)."""
    done = [s for s in copies if _already_borrows(s, pool_attr)]
    if done and len(done) == len(copies) and not own:
        raise Declined(f"self.{done[0].attr} stays the runner's model flag (the resolver rewrite"
                       " ORs in a FROZEN_KV borrow): check its gates by hand")
    if not own or pool_attr is not None:
        raise _model_flag(copies[0].attr)
    for store in copies:
        value = store.value
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and store.method == own[0].method):
            raise _model_flag(store.attr)
    names = {s.attr for s in copies}
    cached = sorted({s.attr for c in owner.family for s in c.stores if s.sink and not s.resolver
                     and s.attr not in names and s.method == "__init__" and s.under & RUNNER})
    if cached:
        listed = ", ".join(f"self.{name}" for name in cached[:3])
        raise Declined(f"{listed} set in __init__ only under the runner's model flag "
                       f"self.{copies[0].attr}: hand-fix first (docs/upstream-patch.md)")


def _already_borrows(store: Store, pool_attr: Optional[str]) -> bool:
    """``<runner>.<flag> or (... self.<pool_attr> ...)``: the rewrite's own form."""
    value = store.value
    return (pool_attr is not None and isinstance(value, ast.BoolOp)
            and isinstance(value.op, ast.Or) and any(
                isinstance(n, ast.Attribute) and n.attr == pool_attr
                for n in ast.walk(value.values[-1])))


def _model_flag(attr: str) -> Declined:
    """A copy of the runner's model flag (``is_hybrid_swa``) is true for pools no type test
    is proven to accept (DeepSeek-V4's is a ``BaseSWAKVPool`` but no ``SWAKVPool``; an
    ``SWAKVPool`` may hold no SWA layer): a pool test in its place would change what a plain
    target decides, in this class and in every heir."""
    return Declined(f"self.{attr} copies the runner's model flag, which no pool test is proven"
                    " to equal (DeepSeek-V4's BaseSWAKVPool is no SWAKVPool)")


def _check_flag_kinds(facts: FileFacts, cls: ClassFacts, names: set) -> None:
    """A gate may become the pool test only for a flag that is exactly the pool test already
    or set in another module; never for a copy of the runner's model flag (by name: the reason
    names the same flag on every run)."""
    for name in sorted(names):
        stores = facts.stores_of(cls, name)
        flag = facts.flag(cls, name)
        if any(s.bits & RUNNER and not s.bits & TYPE for s in stores):
            raise _model_flag(name)
        if stores and not any(s.bits & RUNNER for s in stores) and flag.exact is None:
            raise Declined(f"self.{name} is not the pool test; its gates cannot become one")


def _resolved_before(owner: ClassFacts, method: str, pool_attr: str, index: int) -> bool:
    function = owner.methods[method]
    lines = [s.node.lineno for s in owner.stores if s.attr == pool_attr and s.method == method]
    return bool(lines) and min(lines) < function.body[index].lineno


def _gated_flags(facts: FileFacts, cls: ClassFacts) -> set:
    """Flags of the class its gates read (an inner backend's flag is the inner's to fix)."""
    flags = ((g.name, facts.flag(cls, g.name)) for g in cls.gates if g.kind != "call")
    return {name for name, flag in flags if flag is not None and not flag.inner}


def _owner(cls: ClassFacts, stores: List[Store]) -> ClassFacts:
    """The class of the family that stores the type flag (the class itself when none does)."""
    holders = [c for c in cls.family if any(s is t for s in stores for t in c.stores)]
    if len(holders) > 1:
        raise Declined("SWA flags stored in several classes of the family")
    return holders[0] if holders else cls


def _check_stores(facts: FileFacts, owner: ClassFacts, stores: List[Store]) -> None:
    methods = {s.method for s in stores}
    if len(methods) > 1:
        raise Declined("SWA flags stored in several methods")
    body_names = _class_body_names(owner.node)
    if "__slots__" in body_names:
        raise Declined("the class declares __slots__")
    for store in stores:
        if not isinstance(store.statement, (ast.Assign, ast.AnnAssign)):
            raise Declined(f"self.{store.attr} is not set by a plain assignment")
        targets = getattr(store.statement, "targets", None) or [store.statement.target]
        if len(targets) != 1 or targets[0] is not store.node:
            raise Declined(f"self.{store.attr} is set among other targets")
        if facts.times_stored(store.attr) != 1:
            raise Declined(f"self.{store.attr} is assigned more than once in the file")
        if store.attr in body_names or any(store.attr in c.methods for c in
                                           facts.relatives(owner)):
            raise Declined(f"{store.attr} is also a class attribute or method")
        method = owner.methods[store.method]
        if not _at_method_level(method, store.statement):
            raise Declined(f"self.{store.attr} is set inside a nested block")
        if _shares_a_line(method, store.statement):
            raise Declined(f"self.{store.attr} = ... shares its line with another statement")
        if _deleted(facts.tree, store.attr):
            raise Declined(f"{store.attr} is deleted somewhere: a property cannot be")


def _deleted(tree: ast.AST, attr: str) -> bool:
    deleted = _deletions(tree)
    return attr in deleted or "delattr()" in deleted


def _deletions(tree: ast.AST) -> frozenset:
    """Attributes ``del``-eted anywhere in the module (``"delattr()"`` when it calls delattr),
    read in one walk per tree (the one the file's analysis kept): asked per store, a walk each
    would be quadratic in file size."""
    found = _DELETIONS.get(tree)
    if found is None:
        deleted = set()
        for n in nodes_under(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Del):
                deleted.add(n.attr)
            elif isinstance(n, ast.Call) and getattr(n.func, "id", "") == "delattr":
                deleted.add("delattr()")
        found = _DELETIONS[tree] = frozenset(deleted)
    return found


# tree -> _deletions(tree); method -> _body_index(method). Weak: a cache holding the trees
# themselves kept the last files' whole trees alive in flake8's workers, where every full
# collection of the collector walked them again
_DELETIONS: "weakref.WeakKeyDictionary[ast.AST, frozenset]" = weakref.WeakKeyDictionary()
_BODY_INDEX: "weakref.WeakKeyDictionary[ast.AST, dict]" = weakref.WeakKeyDictionary()


def _class_body_names(node: ast.ClassDef) -> set:
    names = set()
    for statement in node.body:
        targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _at_method_level(method: ast.AST, statement: ast.stmt) -> bool:
    return id(statement) in _body_index(method)


def _shares_a_line(method: ast.AST, statement: ast.stmt) -> bool:
    """Another statement of the method body on a line of ``statement`` (``a = 1; b = 2``): the
    body is in source order, so only its neighbours can."""
    body, at = method.body, _body_index(method)[id(statement)]
    before = at > 0 and body[at - 1].end_lineno >= statement.lineno
    after = at + 1 < len(body) and body[at + 1].lineno <= statement.end_lineno
    return before or after


def _body_index(method: ast.AST) -> dict:
    """``id(statement) -> position`` in the method's body, built once per method: asked per
    store, a scan of the body each would be quadratic in its length."""
    found = _BODY_INDEX.get(method)
    if found is None:
        found = _BODY_INDEX[method] = {id(s): at for at, s in enumerate(method.body)}
    return found


def _runner_param(method: Optional[ast.AST]) -> Optional[str]:
    """The parameter whose ``.token_to_kv_pool`` the method reads (or named ``model_runner``)."""
    if method is None:
        return None
    params = [a.arg for a in method.args.posonlyargs + method.args.args + method.args.kwonlyargs]
    for node in ast.walk(method):
        if isinstance(node, ast.Attribute) and node.attr == ACTIVE_POOL:
            if isinstance(node.value, ast.Name) and node.value.id in params[1:]:
                return node.value.id
    return "model_runner" if "model_runner" in params[1:] else None


def _resolve_at(owner: ClassFacts, method: str, stores: List[Store],
                flags: FrozenSet[str]) -> int:
    """Where the resolution goes: at the first flag store, or earlier when a gate on a flag
    runs first in the method or in a helper it calls. Only our static resolver (it reads
    nothing but the runner) may move, and only while the runner is never rebound."""
    function = owner.methods[method]
    store_line = min(s.statement.lineno for s in stores)
    gated = [gate for gate in owner.gates if gate.name in flags]
    lines = [store_line, *(gate.node.lineno for gate in gated if gate.method == method)]
    # one walk of the method per other method gating, not per gate (thousands of gates)
    lines += [_first_call_line(owner, function, other) or store_line
              for other in {gate.method for gate in gated} - {method}]
    first = min(lines)
    index = next(i for i, s in enumerate(function.body) if s.end_lineno >= first)
    if first < store_line and any(RESOLVER in c.methods for c in owner.family):
        raise Declined(f"a flag is read in {method}() before the existing resolver runs")
    runner = _runner_param(function)
    if any(isinstance(n, ast.Name) and n.id == runner and isinstance(n.ctx, ast.Store)
           for n in nodes_under(function)):
        raise Declined(f"{method}() rebinds {runner}")
    return index


def _first_call_line(cls: ClassFacts, function: ast.AST, helper: str) -> Optional[int]:
    """The first line of ``function`` that calls ``helper`` directly or through other methods."""
    lines = [node.lineno for node in nodes_under(function) if isinstance(node, ast.Call)
             and _self_method(node) is not None
             and (_self_method(node) == helper or helper in _called_by(cls, _self_method(node)))]
    return min(lines, default=None)


def _self_method(call: ast.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id == "self" else None
    return None


def _called_by(cls: ClassFacts, name: str) -> set:
    found, todo = set(), [name]
    while todo:
        function = cls.methods.get(todo.pop())
        for node in nodes_under(function) if function is not None else ():
            call = node.func if isinstance(node, ast.Call) else None
            if isinstance(call, ast.Attribute) and isinstance(call.value, ast.Name):
                if call.value.id == "self" and call.attr in cls.methods and call.attr not in found:
                    found.add(call.attr)
                    todo.append(call.attr)
    return found
