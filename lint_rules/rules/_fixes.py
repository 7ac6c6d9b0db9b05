"""The safe fixes, built from the shared facts as ``lint_rules.fixes.Fix`` data (no libcst here).

Two fixes exist: a gate on a flag that is exactly the pool test becomes that pool test, and a
stored flag becomes a read-only property derived from the pool (with a setter that ignores
writes), so readers and writers in other files keep working. A fix is *safe* only when the
file proves that the module still imports and every attribute still reads as the pool implies;
anything that could make the proof wrong (a class attribute, ``__slots__`` or descriptor of the
same name in the class or a same-file relative, a metaclass, class decorator or record base,
attribute hooks such as ``__getattr__``/``__setattr__``, ``del self.<flag>``, writes through
``setattr`` with a computed name, ``__dict__`` or ``vars()``, a side effect in the dropped
value) means no fix is offered and the finding is shown without ``[*]``.
"""
from __future__ import annotations

import ast
import weakref
from typing import FrozenSet, Optional, Sequence

from lint_rules.fixes import SAFE, AddProperty, Fix, RemoveStatement, ReplaceExpression
from lint_rules.rules._facts import ClassFacts, FileFacts, Flag, Gate, Store, renamed_receiver
from lint_rules.rules._flow import is_self, last_name, nodes_under

# Class-level hooks that decide attribute access themselves: a property beside them may be
# bypassed, and a dropped store may have been needed for their side effects.
ATTRIBUTE_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__",
                             "__init_subclass__", "__slots__", "__dict__"})
RECORD_BASES = frozenset({"NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag",
                          "IntFlag", "Struct", "BaseModel"})
PURE_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "getattr", "type", "bool",
                        "callable", "len"})
BOOLEAN_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "bool", "callable"})
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def pool_test(pool_attr: str, is_none: bool) -> str:
    return f"self.{pool_attr} is {'' if is_none else 'not '}None"


def gate_rewrite(facts: FileFacts, cls: ClassFacts, gate: Gate, flag: Optional[Flag]
                 ) -> Optional[Fix]:
    """The gate as the pool test, only when the flag is exactly that test (else None)."""
    pool_attr = facts.options.pool_attr
    if flag is None or flag.exact is None or gate.kind in ("call", "read"):
        return None  # a helper's result, or a read inside a larger expression: no safe rewrite
    if not _in_class(cls, gate.node) or _renamed(facts, cls):
        return None  # installed code (a wrapper, Cls.m = fn), or a method, names it otherwise
    definition = flag.exact.statement
    if gate.method == flag.exact.method and gate.node.lineno <= definition.end_lineno:
        return None  # read before the flag exists
    if mirror_may_drift(facts, cls, gate.name, (pool_attr,)) or facts.heirs_bind(
            cls, gate.name, pool_attr):
        return None  # a subclass elsewhere binding either name reads the rewrite otherwise
    target = gate.target
    new = pool_test(pool_attr, is_none=gate.negated == flag.polarity)
    old = f"not self.{gate.name}" if gate.negated else f"self.{gate.name}"
    change = ReplaceExpression((target.lineno, target.col_offset),
                               (target.end_lineno, target.end_col_offset), new)
    return Fix(f"Replace `{old}` with `{new}`", SAFE, (change,))


def merged_fix(fixes: Sequence[Optional[Fix]]) -> Optional[Fix]:
    """The rewrites of the reads of one decision as one fix (each is exact on its own: a read
    that has none stays, and is found again)."""
    fixes = [fix for fix in fixes if fix is not None]
    if len(fixes) < 2:
        return fixes[0] if fixes else None
    return Fix("; ".join(fix.title for fix in fixes), SAFE,
               tuple(change for fix in fixes for change in fix.changes))


def mirror_may_drift(facts: FileFacts, cls: ClassFacts, flag: str, pools: Sequence[str],
                     unproven: bool = True) -> bool:
    """Whether the file may make ``self.<flag>`` and the pools it mirrors disagree without a
    plain assignment: ``del`` of either, a descriptor or unplain binding of the flag, and
    (``unproven``: what a fix must rule out, though nothing shows it happens) computed
    ``setattr``/``__dict__``/``vars()`` writes anywhere in the file, an attribute hook in the
    class's family. A finding needs the first kind: a descriptor elsewhere writing
    ``obj.__dict__[self.name]`` makes no mirror stale."""
    uses = file_uses(facts)
    return bool(unproven and uses.dynamic or {flag, *pools} & uses.deleted or any(
        _binds_unplainly(c.node, flag) or unproven and ATTRIBUTE_HOOKS & _class_names(c.node)
        for c in facts.relatives(cls)))


def _renamed(facts: FileFacts, cls: ClassFacts) -> bool:
    """``renamed_receiver`` of the class's relatives, once per class (asked for every gate)."""
    known = facts.__dict__.setdefault("_renamed_receivers", {})
    if cls.name not in known:
        known[cls.name] = renamed_receiver(facts.relatives(cls))
    return known[cls.name]


def property_fix(facts: FileFacts, cls: ClassFacts, store: Store, lines: Sequence[str],
                 is_none: bool = False) -> Optional[Fix]:
    """Drop ``self.<flag> = ...`` and add a read-only ``<flag>`` property over the pool."""
    statement, pool_attr = store.statement, facts.options.pool_attr
    if not _removable(store) or not facts.pool_set_once(cls) or not _in_class(cls, store.node):
        return None
    if facts.pool_attr_clash(cls, pool_attr, (store.attr,)) or _renamed(facts, cls):
        # (the source spells the object otherwise than self)
        return None
    if facts.times_stored(store.attr) != 1 or any(
        store.attr in c.methods for c in facts.relatives(cls)
    ):
        return None
    method = cls.methods.get(store.method)
    if method is None or not _directly_in(method, statement):
        return None
    if _read_before_pool(method, store.attr, facts, cls) or _unprovable(facts, cls, store):
        return None
    if facts.heirs_bind(cls, store.attr, pool_attr):
        return None  # a subclass in another module may bind the flag or re-resolve the pool
    if not is_none and not _positive(method, statement):
        return None  # the property says "the pool is SWA": a negated flag would read inverted
    changes = (
        RemoveStatement((statement.lineno, statement.col_offset),
                        (statement.end_lineno, statement.end_col_offset)),
        AddProperty((cls.node.lineno, cls.node.col_offset), store.method, store.attr,
                    pool_attr, is_none),
    )
    title = f"Make `self.{store.attr}` a read-only property of `self.{pool_attr}`"
    return Fix(title, SAFE, changes)


# -- what the property fix must prove ----------------------------------------------------------
def _in_class(cls: ClassFacts, node: ast.AST) -> bool:
    """``node`` lies in the class statement (not in code installed into the class from
    outside: a decorator's wrapper, a function of a ``type()`` class or ``Cls.m = fn``)."""
    start, end = cls.node.lineno, getattr(cls.node, "end_lineno", None) or cls.node.lineno
    return start <= node.lineno <= end


def _unprovable(facts: FileFacts, cls: ClassFacts, store: Store) -> bool:
    """Anything in the file that could make the property fail to import or read otherwise."""
    name, uses = store.attr, file_uses(facts)
    if uses.dynamic or name in uses.deleted | uses.probed | uses.class_reads:
        return True
    names = [c.name for c in facts.classes]
    if names.count(cls.name) != 1:
        return True  # a redefined class: which one the name means is not ours to guess
    ancestors = cls.family[1:]  # a base's own binding of the name is shadowed by the property
    for relative in facts.relatives(cls):
        node = relative.node
        if node.decorator_list or node.keywords or RECORD_BASES & set(relative.bases):
            return True  # a class decorator, metaclass or record type may rebuild the class
        bound = _class_names(node)
        if ATTRIBUTE_HOOKS & bound or (name in bound and relative not in ancestors):
            return True
    return _class_names(cls.node, count=True).get(store.method, 0) != 1


def _class_names(node: ast.ClassDef, count: bool = False):
    """Names the class body binds at class scope (statements nested in ``if``/``try``/...
    included, function and class bodies not), with ``__slots__`` entries. Walked once per
    class: every gate's fix asks it of each class of its family."""
    found = _CLASS_NAMES.get(node)
    if found is None:
        found = _CLASS_NAMES[node] = _bound_at_class_scope(node)
    return found[0] if count else found[1]


# class -> (its class-scope names counted, the same as a frozenset, its ``name = <constant>``
# statements counted by name)
_CLASS_NAMES: "weakref.WeakKeyDictionary[ast.ClassDef, tuple]" = weakref.WeakKeyDictionary()


def _bound_at_class_scope(node: ast.ClassDef) -> tuple:
    found: dict = {}
    for child in _class_scope(node.body):
        names = []
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(child.name)
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.append(child.id)
        elif isinstance(child, ast.alias):
            names.append((child.asname or child.name).split(".")[0])
        elif isinstance(child, (ast.Call)) and last_name(child.func) in ("locals", "vars", "exec"):
            names.append("__dict__")  # the class namespace written by name: anything goes
        for bound in names:
            found[bound] = found.get(bound, 0) + 1
        if isinstance(child, (ast.Assign, ast.AnnAssign)) and _targets_slots(child):
            for slot in _slot_names(child.value):
                found[slot] = found.get(slot, 0) + 1
    plain: dict = {}
    for name in filter(None, map(_plain_default, node.body)):
        plain[name] = plain.get(name, 0) + 1
    return found, frozenset(found), plain


def _class_scope(statements):
    """Every node of the class scope: nested function/class/lambda bodies are other scopes
    (their names and decorators are still the class's)."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(node.decorator_list)
            todo.extend(getattr(node, "bases", ()))
        elif not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))


def _targets_slots(statement) -> bool:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets)


def _slot_names(value: Optional[ast.AST]) -> tuple:
    """The names a literal ``__slots__`` lists; ``("__dict__",)`` (unknowable) otherwise."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return (value.value,)
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
    ):
        return tuple(e.value for e in value.elts)
    return ("__dict__",)


def _binds_unplainly(node: ast.ClassDef, name: str) -> bool:
    """The class scope binds ``name`` other than by ``name = <constant>`` (an instance store
    then shadows it); a descriptor or slot of that name would take the store itself."""
    _class_names(node)  # counts both kinds of binding, once per class
    counts, _, plain = _CLASS_NAMES[node]
    return counts.get(name, 0) > plain.get(name, 0)


def _plain_default(statement) -> Optional[str]:
    """The name a ``name = <constant>`` (or ``name: T [= <constant>]``) statement binds."""
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) == 1 and isinstance(targets[0], ast.Name) and (
            statement.value is None or isinstance(statement.value, ast.Constant)):
        return targets[0].id
    return None


class FileUses:
    """What the whole file does with attributes by name, collected in one walk."""

    def __init__(self, tree: ast.AST, class_names: FrozenSet[str],
                 nodes: Optional[list] = None) -> None:
        self.dynamic = False  # attributes written or probed by a computed name
        self.deleted: set = set()  # ``del x.<name>`` / ``delattr(x, "<name>")``
        self.probed: set = set()  # ``hasattr(x, "<name>")`` / ``getattr(x, "<name>", d)``
        self.class_reads: set = set()  # ``cls.<name>``, ``Backend.<name>``, ``type(x).<name>``
        for node in nodes_under(tree) if nodes is None else nodes:
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Attribute):
                self._attribute(node, class_names)

    def _call(self, node: ast.Call) -> None:
        function = last_name(node.func)
        if function in ("vars", "exec", "eval", "__setattr__", "__delattr__"):
            self.dynamic = True
        if function not in ("setattr", "delattr", "hasattr", "getattr") or len(node.args) < 2:
            return
        named = node.args[1]
        literal = isinstance(named, ast.Constant) and isinstance(named.value, str)
        if function == "getattr" and len(node.args) < 3:
            return  # a plain read by name reads the property like any other read
        if not literal:
            self.dynamic = True
        elif function == "delattr":
            self.deleted.add(named.value)
        elif function in ("hasattr", "getattr"):
            self.probed.add(named.value)

    def _attribute(self, node: ast.Attribute, class_names: FrozenSet[str]) -> None:
        if node.attr == "__dict__":
            self.dynamic = True
        elif isinstance(node.ctx, ast.Del):
            self.deleted.add(node.attr)
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id in class_names | {"cls"}) or (
            isinstance(owner, ast.Call) and last_name(owner.func) == "type"
        ) or (isinstance(owner, ast.Attribute) and owner.attr == "__class__"):
            self.class_reads.add(node.attr)


# tree -> its FileUses: every fix of one file, in the package's analysis and in the codemod's
# same-file one, shares one walk
_USES: "weakref.WeakKeyDictionary[ast.AST, FileUses]" = weakref.WeakKeyDictionary()


def file_uses(facts: FileFacts) -> FileUses:
    found = _USES.get(facts.tree)
    if found is None:
        nodes = nodes_under(facts.tree)
        names = frozenset(n.name for n in nodes if isinstance(n, ast.ClassDef))
        found = _USES[facts.tree] = FileUses(facts.tree, names, nodes)
    return found


# -- the statement that goes -------------------------------------------------------------------
def _removable(store: Store) -> bool:
    """A single-target assignment to ``self.<flag>`` of a side-effect-free boolean, outside a
    resolver (dropping it must lose nothing but the flag)."""
    statement = store.statement
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or not store.sink or store.resolver:
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1 or targets[0] is not store.node:
        return False
    value = statement.value
    return value is not None and _pure(value) and (_boolean(value) or _stored_constant(store))


def _stored_constant(store: Store) -> bool:
    """``self.<flag> = True`` under a type test: the flag is the test (control dependence)."""
    value = store.statement.value
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)


def _boolean(node: ast.AST) -> bool:
    """The expression's value is a ``bool`` (so the property's ``bool`` reads the same)."""
    if isinstance(node, ast.Compare):  # ``==`` on a tensor is a tensor: only these are bools
        return all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops) or (
            len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
            and any(isinstance(side, ast.Constant) and isinstance(side.value, str)
                    for side in (node.left, *node.comparators)))
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.BoolOp):
        return all(_boolean(value) for value in node.values)
    if isinstance(node, ast.Call):
        return last_name(node.func) in BOOLEAN_CALLS
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _pure(node: ast.AST) -> bool:
    """Only names, attributes, constants, comparisons, boolean operators and type tests:
    evaluating it has no effect a dropped statement could lose."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            if not isinstance(child.func, ast.Name) or child.func.id not in PURE_CALLS:
                return False
        elif not isinstance(child, (ast.Name, ast.Attribute, ast.Constant, ast.Compare,
                                    ast.BoolOp, ast.UnaryOp, ast.Tuple, ast.expr_context,
                                    ast.cmpop, ast.boolop, ast.unaryop, ast.keyword)):
            return False
    return True


def _positive(method: ast.AST, statement: ast.stmt) -> bool:
    """The flag is True when the pool test passes: no negation in its value (nor in the local
    it copies), and a stored constant is ``True`` in the body of a test that is not negated."""
    value = statement.value
    if isinstance(value, ast.Name):  # flag = <local>: the local's last binding before it
        bound = [n.value for n in ast.walk(method) if isinstance(n, ast.Assign)
                 and n.lineno < statement.lineno and any(
                     isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        value = bound[-1] if bound else value
    if _negated(value):
        return False
    if isinstance(value, ast.Constant):
        branch = _branch_of(method, statement)
        return value.value is True and branch is not None and not _negated(branch)
    return True


def _negated(node: ast.AST) -> bool:
    """``not x``, ``x is None``, ``type(x) is not T``: a test whose truth is the pool test's
    opposite."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not):
            return True
        if isinstance(sub, ast.Compare):
            sides = (sub.left, *sub.comparators)
            void = any(isinstance(side, ast.Constant) and side.value in (None, False)
                       for side in sides)
            if any(isinstance(op, (ast.Is, ast.Eq)) for op in sub.ops) and void or any(
                    isinstance(op, (ast.IsNot, ast.NotEq, ast.NotIn)) for op in sub.ops
            ) and not void:
                return True  # x is None; type(x) is not SWAKVPool (but x is not None)
        if isinstance(sub, ast.Constant) and sub.value is False:
            return True
    return False


def _branch_of(method: ast.AST, statement: ast.stmt) -> Optional[ast.AST]:
    """The test whose body holds ``statement`` directly; None in an ``else`` or elsewhere."""
    for node in ast.walk(method):
        if isinstance(node, (ast.If, ast.While)) and statement in node.body:
            return node.test
    return None


def _directly_in(method: ast.AST, statement: ast.stmt) -> bool:
    """The statement belongs to the method's own scope, not to a nested function or class."""
    todo = list(method.body)
    while todo:
        node = todo.pop()
        if node is statement:
            return True
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _read_before_pool(method: ast.AST, name: str, facts: FileFacts, cls: ClassFacts) -> bool:
    """A read of ``self.<name>`` in the defining method before the pool attribute is set there:
    the property would answer from a pool that does not exist yet."""
    pool_lines = [
        s.statement.end_lineno if s.statement is not None else s.node.lineno
        for c in cls.family for s in c.stores
        if s.attr == facts.options.pool_attr and s.method == getattr(method, "name", "")
    ]
    resolved = max(pool_lines, default=0)
    return any(
        isinstance(node, ast.Attribute) and node.attr == name and is_self(node.value)
        and isinstance(node.ctx, ast.Load) and node.lineno <= resolved
        for node in ast.walk(method)
    )
