"""Code that runs as a method of a backend without being a method of its class statement.

- A function of the module a method hands ``self`` to (``helper(self)``): its body reads the
  backend (``handed_helpers``); one of another module of the package (``helpers.mark(self)``)
  too, placed at the call (``placed_at``): its findings are this file's, at that call.
- A method wrapped by a decorator of the module or the package: the wrapper the decorator
  returns runs in its place (``wrapper_bodies``: its body is analysed as that method; what it
  keeps in its decorator's cells is module state).
- A class decorator of the module that installs one of its nested functions on the class
  (``cls.__init__ = wrapper``): that function runs as the method (``decorated_methods``).
- A class made with ``type(name, bases, namespace)`` from functions of the module
  (``made_classes``), and functions assigned to a class later, ``Cls.method = fn``
  (``patched_methods``).
- A descriptor class of the module installed as a class attribute (``flag = Memo()``): its
  ``__get__`` runs on every read of ``self.flag``, with its ``obj`` as the backend
  (``descriptor_methods``); one that writes into ``obj.__dict__`` memoises its first answer.
- A ``functools.singledispatch`` function or method with its registered variants: one function
  testing its argument's type and calling the variant registered for it (``dispatched``).

Each is handed to the analysis as an ordinary function of the class. Copies keep the original
nodes' positions, so findings point into the code that runs.
"""
from __future__ import annotations

import ast
import copy
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from lint_rules.rules._flow import (PLACED_NAME, const_str, handed_name, is_self, last_name,
                                    namespace_of, nodes_under)
from lint_rules.rules._vocab import (ACTIVE_POOL, ALLOCATOR, ALLOCATOR_POOL, BACKEND_SUFFIX,
                                     HANDED, POOL_ACCESSORS, RUNNER_SUFFIX, is_swa_word)

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
INSTANCE = "self"
OWNER = "_owner"  # a builder method's own ``self`` (``builder_method``)
DESCRIPTOR = "_descriptor"  # what a descriptor's own ``self`` is renamed to


def copy_tree(node: ast.AST) -> ast.AST:
    """``copy.deepcopy(node)`` for a syntax tree, at a third of its cost: each node copied
    once (a node met twice, the parser's shared ``Load``, is one copy), every list anew, and
    any other value (a name, a constant, a position) shared where ``deepcopy`` gives the
    same object back; anything else is still deep-copied (by ``deepcopy``)."""
    memo: Dict[int, ast.AST] = {}

    def value_of(value):
        kind = type(value)
        if kind in _ATOMIC:
            return value
        if kind is list:
            return [value_of(item) for item in value]
        if isinstance(value, ast.AST):
            return node_of(value)
        return copy.deepcopy(value)

    def node_of(node: ast.AST) -> ast.AST:
        found = memo.get(id(node))
        if found is None:
            kind = type(node)
            found = memo[id(node)] = kind.__new__(kind)
            found.__dict__.update({key: value if type(value) in _ATOMIC else value_of(value)
                                   for key, value in node.__dict__.items()})
        return found

    return node_of(node)


# what ``copy.deepcopy`` returns as it is (a tuple it copies only for what it holds)
_ATOMIC = frozenset({str, int, float, complex, bytes, bool, type(None), type(Ellipsis)})


def _as_method(function: ast.AST, name: str) -> ast.AST:
    """A shallow copy of ``function`` named ``name`` (its body is the same nodes)."""
    method = copy.copy(function)
    method.name = name
    return method


def _returned_defs(decorator: ast.AST) -> List[ast.AST]:
    """The nested functions a decorator returns (``return wrapper``)."""
    nested = {s.name: s for s in decorator.body if isinstance(s, FUNCTIONS)}
    returned = [s.value.id for s in ast.walk(decorator) if isinstance(s, ast.Return)
                and isinstance(s.value, ast.Name)]
    return [nested[name] for name in returned if name in nested]


def wrapper_bodies(method: ast.AST, function_of: Callable) -> List[ast.AST]:
    """The wrappers that run in place of ``method``: those returned by each decorator of it
    (``function_of``: the function a decorator names, of the module or the package; a call of
    one, the decorator it returns), the instance their first parameter. What a wrapper keeps
    in a cell of its decorator (``memo = {}`` there, ``memo[k] = ...`` in it) lives as long as
    the class: the wrapper declares those names ``global``, as module state is kept."""
    found = []
    for decorator in method.decorator_list:
        enclosing = _decorator_defs(decorator, function_of)
        function = enclosing[-1] if enclosing else None
        if function is None:
            continue
        cells = set().union(*map(_cell_names, filter(None, enclosing)))
        for wrapper in _returned_defs(function):
            renamed = _renamed(wrapper, _first_param(wrapper), method.name)
            kept = sorted(cells & _free_names(renamed))
            if kept and renamed.body:
                renamed = _as_method(renamed, method.name)  # (its own body list)
                renamed.body = [ast.copy_location(ast.Global(names=kept), renamed.body[0]),
                                *renamed.body]
            found.append(renamed)
    return found


def _decorator_defs(decorator: ast.AST, function_of: Callable) -> list:
    """The defs a decorator runs, outermost first, the decorator itself last: the function it
    names (``function_of``), or for a call of one (``@register("name")``, a decorator factory)
    the factory and the decorator it returns (None where it returns none we see); ``[]`` for
    a decorator of no function we see."""
    made = type(decorator) is ast.Call
    function = function_of(decorator.func if made else decorator)
    if function is None:
        return []
    return [function, next(iter(_returned_defs(function)), None)] if made else [function]


def _cell_names(function: ast.AST) -> set:
    """The names ``function`` binds in its own body (not in functions nested in it), but for
    its parameters: the cells the functions it makes close over."""
    bound, stack = set(), list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue
        if type(node) is ast.Name and type(node.ctx) is ast.Store:
            bound.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return bound


def _free_names(function: ast.AST) -> set:
    """The names ``function`` reads without binding them (its parameters and locals aside), and
    those it declares ``nonlocal``."""
    params = {a.arg for a in ast.walk(function.args) if type(a) is ast.arg}
    nodes = nodes_under(function)
    declared = {name for n in nodes if type(n) is ast.Nonlocal for name in n.names}
    local = {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Store}
    return {n.id for n in nodes if type(n) is ast.Name} - params - (local - declared)


def _first_param(function: ast.AST) -> Optional[str]:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def _renamed(function: ast.AST, instance: Optional[str], name: str,
             descriptor: Optional[str] = None, names: Optional[Dict[str, str]] = None) -> ast.AST:
    """``function`` as a method called ``name``: its parameter ``instance`` is ``self``, its
    own ``self`` (a descriptor's) is ``_descriptor``, and ``_descriptor.<attr>`` for an attr in
    ``names`` is the constant it holds (the attribute name ``__set_name__`` kept)."""
    if instance in (None, INSTANCE) and descriptor is None:
        return _as_method(function, name)
    renames = {instance: INSTANCE}
    if descriptor is not None:
        renames[descriptor] = DESCRIPTOR
    method = _Renamer(renames, names or {}).visit(copy_tree(function))
    method.name = name
    return method


class _Renamer(ast.NodeTransformer):
    def __init__(self, renames: Dict[str, str], names: Dict[str, object]) -> None:
        self.renames, self.names = renames, names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.renames:
            node.id = self.renames[node.id]
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        if node.arg in self.renames:
            node.arg = self.renames[node.arg]
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == DESCRIPTOR and \
                node.attr in self.names:
            held = self.names[node.attr]  # a constant, or the function it was handed
            return ast.copy_location(ast.Constant(held), node) if type(held) is str else (
                copy_tree(held))
        return node


def called_method(method: ast.AST, instance: str, name: str) -> ast.AST:
    """A class's ``__call__`` as a function of the module called ``name``: its own ``self``
    (``instance``) is ``_descriptor``, an object of its own, never the backend."""
    return _renamed(method, None, name, descriptor=instance)


def handed_helpers(handed: Dict[str, int], functions: Dict[str, ast.AST],
                   methods: Dict[str, ast.AST]) -> List[Tuple[str, ast.AST]]:
    """``(name, method)`` for each function of the module a method hands ``self`` to
    (``window_rows(self, table)``): its body read as a method, the parameter given ``self``
    renamed to it (a decision on ``backend.flag`` there is one on the backend's flag)."""
    found = []
    for name, index in handed.items():
        function = functions.get(name)
        if function is None or name in methods or isinstance(function, ast.AsyncFunctionDef):
            continue
        positional = [*function.args.posonlyargs, *function.args.args]
        if index < len(positional):
            found.append((name, _renamed(function, positional[index].arg, name)))
    return found


def foreign_helpers(handed: Dict[str, int], function: ast.AST, methods: Dict[str, ast.AST],
                    resolve) -> List[Tuple[str, ast.AST, ast.AST]]:
    """``(name, def, method)`` for each function of another module that ``function`` hands
    ``self`` to (``helpers.mark(self)``, ``mark(self)`` imported), as ``resolve(func)`` finds
    its def (None: not one of the package): that def placed at the first such call
    (``placed_at``), and as a method, the parameter given ``self`` renamed to it."""
    found = []
    for name, index in handed.items():
        call = None if name in methods else next((  # (the method's kept walk: the order of
            node for node in nodes_under(function) if type(node) is ast.Call  # ast.walk)
            and handed_name(node.func) == name and any(
                isinstance(a, ast.Name) and a.id == INSTANCE for a in node.args)), None)
        found_def = resolve(call.func) if call is not None else None
        helper, scope = found_def or (None, None)
        if not isinstance(helper, ast.FunctionDef):
            continue
        positional = [*helper.args.posonlyargs, *helper.args.args]
        if index < len(positional):
            placed = placed_at(helper, call, scope)
            found.append((name, placed, _renamed(placed, positional[index].arg, name)))
    return found


def placed_at(function: ast.AST, call: ast.AST, scope) -> ast.AST:
    """A copy of ``function`` (a def or class of another file, of module ``scope``) whose every node
    stands at ``call``: what the analysis finds in it is reported where this file hands it the
    backend. Each name it reads that its own module qualifies (a helper of that module, one it
    imports) carries that qualified name, so its calls are followed as there, not as here."""
    copied = copy_tree(function)
    params = {a.arg for a in ast.walk(getattr(copied, "args", copied)) if type(a) is ast.arg}
    for node in nodes_under(copied):  # (ast.walk's order; no expression context: no position)
        if "lineno" in node._attributes:
            node.lineno, node.col_offset = call.lineno, call.col_offset
            node.end_lineno, node.end_col_offset = call.end_lineno, call.end_col_offset
        if type(node) is ast.Name and node.id not in params and scope is not None:
            named = scope.qualified(node) or (  # (a global of its module too: its table)
                f"{scope.module}.{node.id}" if node.id in scope.functions or (
                    node.id in scope.globals) else None)
            if named is not None:
                setattr(node, PLACED_NAME, named)
    return copied


def given_self(function: ast.AST, positions: Tuple[int, ...], bound: bool) -> Optional[ast.AST]:
    """``function`` as called with the backend itself at the call's argument ``positions``
    (``self._pick_pool(self)``, ``Klass.probe(x, self)``): each parameter given it renamed
    ``self`` (its ``runner.token_to_kv_pool`` is the backend's live pool, not a runner's).
    ``bound``: the call binds the first parameter itself (``self.m``, ``cls.m``), unless
    ``function`` is a staticmethod. None when no such parameter exists (``*args``)."""
    decorators = {last_name(getattr(d, "func", d)) for d in function.decorator_list}
    skip = 0 if "staticmethod" in decorators else 1 if bound or "classmethod" in decorators \
        else 0
    positional = [*function.args.posonlyargs, *function.args.args][skip:]
    if any(i >= len(positional) for i in positions):
        return None
    names = {positional[i].arg: INSTANCE for i in positions}
    copied = _Renamer(names, {}).visit(copy_tree(function))
    return copied


def made_classes(statements: Iterable[ast.stmt], functions: Dict[str, ast.AST]) -> list:
    """``Name = type("Name", (Base,), {"__init__": init, ...})``: a class statement built
    from the functions of the module the namespace names (placed at the call)."""
    found = []
    for statement in statements:
        call = statement.value if isinstance(statement, ast.Assign) else None
        if not (isinstance(call, ast.Call) and last_name(call.func) == "type"
                and len(call.args) == 3 and isinstance(call.args[2], ast.Dict)):
            continue
        name = const_str(call.args[0]) or last_name(statement.targets[0])
        bases = call.args[1].elts if isinstance(call.args[1], (ast.Tuple, ast.List)) else []
        body = [_as_method(functions[value.id], const_str(key))
                for key, value in zip(call.args[2].keys, call.args[2].values)
                if const_str(key) and isinstance(value, ast.Name) and value.id in functions]
        if name and body:
            node = ast.ClassDef(name=name, bases=list(bases), keywords=[], body=body,
                                decorator_list=[])
            if "type_params" in ast.ClassDef._fields:  # (Python 3.12+)
                node.type_params = []
            found.append(ast.copy_location(node, call))
            node.end_lineno, node.end_col_offset = call.end_lineno, call.end_col_offset
    return found


def patched_methods(statements: Iterable[ast.stmt], functions: Dict[str, ast.AST]) -> dict:
    """``{class name: [method, ...]}`` for ``Cls.method = fn`` at module level."""
    found: Dict[str, list] = {}
    for statement in statements:
        if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Name):
            continue
        function = functions.get(statement.value.id)
        for target in statement.targets:
            if function is not None and isinstance(target, ast.Attribute) and isinstance(
                    target.value, ast.Name):
                found.setdefault(target.value.id, []).append(_as_method(function, target.attr))
    return found


def decorated_methods(node: ast.ClassDef, function_of: Callable, hook_of: Callable) -> list:
    """The methods a class decorator (``function_of``: the function a decorator names, of the
    module or the package; a call of one, the decorator it returns) installs on the class it is
    given: ``cls.<name> = fn`` there, ``fn`` one of its nested functions (a wrapper of
    ``__init__`` that calls the original, then keeps more state, runs as ``__init__`` does).
    A base's ``__init_subclass__`` (``hook_of``: that of the class a base names) is such a
    decorator of every class that inherits it."""
    found = []
    for decorator in node.decorator_list:
        found.extend(_installed_by((_decorator_defs(decorator, function_of) or [None])[-1]))
    for base in node.bases:
        found.extend(_installed_by(hook_of(base)))
    return found


def _installed_by(function: Optional[ast.AST]) -> list:
    """The nested functions ``function`` (given a class first) installs on that class."""
    if function is None or not function.args.args:
        return []
    klass = function.args.args[0].arg
    nested = {s.name: s for s in function.body if isinstance(s, FUNCTIONS)}
    return [_as_method(nested[statement.value.id], target.attr)
            for statement in function.body if isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Name) and statement.value.id in nested
            for target in statement.targets if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name) and target.value.id == klass]


def descriptor_methods(node: ast.ClassDef, class_of: Callable) -> list:
    """``(attr, method, memoises)`` for each ``attr = Descriptor(...)`` of the class body whose
    class (``class_of``: the class a name names, of the module or the package) defines
    ``__get__``: that ``__get__`` as a method named ``attr``, and whether it writes into the
    instance (``obj.__dict__[...] = value``: its first answer is kept)."""
    found = []
    for statement in node.body:
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
            continue
        descriptor = class_of(statement.value.func)
        getter = own_method(descriptor, "__get__") if descriptor is not None else None
        params = [a.arg for a in getter.args.args] if getter is not None else []
        if len(params) < 2:
            continue
        for target in statement.targets:
            if isinstance(target, ast.Name):
                names = _built_with(descriptor, statement.value)
                names.update((kept, target.id) for kept in _set_name_attrs(descriptor))
                method = _renamed(getter, params[1], target.id, params[0], names)
                memoises = _memoises(method)
                if memoises:
                    _kept_at(method, target)
                found.append((target.id, method, memoises))
    return found


def decorator_descriptor(descriptor: Optional[ast.ClassDef]) -> Optional[bool]:
    """For a method decorated with class ``descriptor`` (``@memo``, the class defining
    ``__get__``): each read of the attribute runs the method, so it is a property; True when
    that ``__get__`` writes its answer into the instance (its first answer is kept, as a
    ``cached_property``'s), False when not; None for a class with no ``__get__``."""
    getter = own_method(descriptor, "__get__") if descriptor is not None else None
    params = [a.arg for a in getter.args.args] if getter is not None else []
    if len(params) < 2:
        return None
    return _memoises(_renamed(getter, params[1], "__get__", params[0], {}))


def _kept_at(method: ast.AST, declared: ast.AST) -> None:
    """The writes of a memoising ``__get__`` into its instance, placed where the backend
    declares the descriptor (``f2s = Snapshot("full_to_swa_index_mapping")``): that line keeps
    the answer, as a ``cached_property``'s ``def`` line does, and a ``noqa`` there is the
    class's own; the descriptor's class may serve backends that keep no pool state."""
    for node in ast.walk(method):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) and any(
                _writes_instance(child) for child in ast.walk(node)):
            for part in ast.walk(node):
                if hasattr(part, "lineno"):
                    ast.copy_location(part, declared)


def _writes_instance(node: ast.AST) -> bool:
    """``self.__dict__[...] = v``, ``setattr(self, ...)``, ``self.__dict__.update(...)``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        return is_self(namespace_of(node.value))
    return isinstance(node, ast.Call) and (
        last_name(node.func) == "setattr" and bool(node.args) and last_name(node.args[0])
        == INSTANCE or isinstance(node.func, ast.Attribute) and node.func.attr in (
            "update", "setdefault") and is_self(namespace_of(node.func.value)))


def metaclass_methods(node: ast.ClassDef, class_of: Callable) -> list:
    """``(name, method)`` for the ``__call__`` of the class's metaclass (``metaclass=Meta``;
    ``class_of``: the class it names, of the module or the package): it runs once per
    construction, after ``__init__`` when it builds the instance with ``inst =
    super().__call__(...)`` (or ``type.__call__``, ``cls.__new__``), so its body is a method
    whose ``inst`` is ``self`` (named ``Meta.__call__``)."""
    meta = next((class_of(k.value) for k in node.keywords if k.arg == "metaclass"), None)
    call = own_method(meta, "__call__") if meta is not None else None
    built = next((s for s in call.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call)
                  and last_name(s.value.func) in ("__call__", "__new__")), None) if call else None
    if built is None:
        return []
    method = _renamed(call, built.targets[0].id, f"{meta.name}.__call__")
    index = call.body.index(built)  # (the instance's own construction: `self = ...` no more)
    method.body[index] = ast.copy_location(ast.Pass(), built)
    return [(method.name, method)]


def own_method(node: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The method ``name`` a class statement defines itself (None: it defines none)."""
    return next((s for s in node.body if isinstance(s, FUNCTIONS) and s.name == name), None)


def _built_with(descriptor: ast.ClassDef, call: ast.Call) -> Dict[str, object]:
    """The descriptor's attributes its ``__init__`` sets from a parameter this construction
    gives a constant string (``_PoolAttr("full_to_swa_index_mapping")``: ``self.attr``) or a
    function (``Derived(lambda pool: ...)``, ``Derived(probe)``: what ``self.derive(...)``
    calls)."""
    init = own_method(descriptor, "__init__")
    if init is None or not init.args.args:
        return {}
    params = [a.arg for a in init.args.args]
    given = {params[i + 1]: _given(a) for i, a in enumerate(call.args[:len(params) - 1])}
    given.update((k.arg, _given(k.value)) for k in call.keywords if k.arg)
    return {
        t.attr: given[v.id] for node in ast.walk(init) if isinstance(node, ast.Assign)
        for v in [node.value] if isinstance(v, ast.Name) and given.get(v.id)
        for t in node.targets if isinstance(t, ast.Attribute)
        and isinstance(t.value, ast.Name) and t.value.id == params[0]}


def _given(value: ast.AST):
    """What a descriptor's constructor is given, as its ``__get__`` may use it: a constant
    string, or a callable spelled by a lambda or a name; None for anything else."""
    return const_str(value) or (value if type(value) in (ast.Lambda, ast.Name, ast.Attribute)
                                else None)


def _set_name_attrs(descriptor: ast.ClassDef) -> Tuple[str, ...]:
    """The descriptor's attributes ``__set_name__(self, owner, name)`` sets to ``name``."""
    hook = own_method(descriptor, "__set_name__")
    if hook is None or len(hook.args.args) < 3:
        return ()
    own, name = hook.args.args[0].arg, hook.args.args[2].arg
    return tuple(
        t.attr for s in ast.walk(hook) if isinstance(s, ast.Assign)
        and isinstance(s.value, ast.Name) and s.value.id == name
        for t in s.targets if isinstance(t, ast.Attribute)
        and isinstance(t.value, ast.Name) and t.value.id == own)


def _memoises(method: ast.AST) -> bool:
    """The method writes into its instance: ``self.__dict__[...] = v``, ``setattr(self, ...)``,
    ``self.__dict__.update/setdefault(...)``."""
    return any(map(_writes_instance, ast.walk(method)))


DISPATCHERS = ("singledispatch", "singledispatchmethod")


def dispatched(statements: Iterable[ast.stmt], marks, method: bool = False) -> Dict[str, ast.AST]:
    """The ``functools.singledispatch`` functions among ``statements`` (``marks``: a
    statement's decorator names), each as one function that dispatches on its first argument
    (``method``: the one after ``self``): ``if isinstance(arg, T): return <variant>(...)`` for
    every variant registered for ``T`` (``@f.register`` on an annotated first parameter, or
    ``@f.register(T)``), else its own body. The dispatch is a type test of the argument; the
    variants are kept as functions named ``f@1``, ``f@2``, ... that the tests call."""
    found: Dict[str, ast.AST] = {}
    variants: Dict[str, list] = {}
    for statement in statements:
        if statement.__class__ not in FUNCTIONS or not statement.decorator_list:
            continue  # (a class test without a call: every statement of every scope is asked)
        if marks(statement) & set(DISPATCHERS):
            found.setdefault(statement.name, statement)
            continue
        for decorator in statement.decorator_list:
            named = getattr(decorator, "func", decorator)
            if isinstance(named, ast.Attribute) and named.attr == "register" and isinstance(
                    named.value, ast.Name) and named.value.id in found:
                kind = decorator.args[0] if isinstance(decorator, ast.Call) and \
                    decorator.args else _annotation(statement, method)
                if kind is not None:
                    variants.setdefault(named.value.id, []).append((kind, statement))
    made = {}
    for name, registered in variants.items():
        made[name] = _dispatcher(found[name], name, registered, method)
        made.update((f"{name}@{n}", fn) for n, (_, fn) in enumerate(registered, 1))
    return made


def _annotation(function: ast.AST, method: bool) -> Optional[ast.AST]:
    positional = [*function.args.posonlyargs, *function.args.args][int(method):]
    return positional[0].annotation if positional else None


def _dispatcher(base: ast.AST, name: str, registered: list, method: bool) -> ast.AST:
    positional = [a.arg for a in (*base.args.posonlyargs, *base.args.args)]
    if len(positional) <= int(method):
        return base
    subject, passed = positional[int(method)], positional[int(method):]
    body = base.body
    for n in range(len(registered), 0, -1):
        callee = ast.Attribute(value=ast.Name(id=positional[0], ctx=ast.Load()),
                               attr=f"{name}@{n}", ctx=ast.Load()) if method else ast.Name(
            id=f"{name}@{n}", ctx=ast.Load())
        call = ast.Call(func=callee, args=[ast.Name(id=p, ctx=ast.Load()) for p in passed],
                        keywords=[])
        test = ast.Call(func=ast.Name(id="isinstance", ctx=ast.Load()),
                        args=[ast.Name(id=subject, ctx=ast.Load()), registered[n - 1][0]],
                        keywords=[])
        body = [ast.If(test=test, body=[ast.Return(value=call)], orelse=body)]
    made = _as_method(base, base.name)
    made.body = body
    for node in body:
        ast.copy_location(node, base)
        ast.fix_missing_locations(node)
    return made


# -- builders: code outside any backend class that keeps state on a backend it built ----------
BUILDER_MARK = "poolguard_builder"  # on a class statement made for builders (``builder_class``)
RUNNER_WORD = RUNNER_SUFFIX.lower()
TEST_PREFIX = "test"  # pytest's default test function names
POOL_NAMES = frozenset({ACTIVE_POOL, ALLOCATOR, ALLOCATOR_POOL, *POOL_ACCESSORS})


def built_backends(function: ast.AST, is_backend, is_helper) -> List[
        Tuple[str, Optional[ast.expr], tuple]]:
    """``(name, class, constructions)`` for each backend ``function`` (a function outside any
    backend class) builds and keeps something on: ``backend = XBackend(runner)`` (``is_backend``
    says which callables are backend classes), or a parameter handed one (named ``backend`` or
    ``*_backend``, or annotated with a backend class: ``class`` is then the annotation or None).
    Kept: an attribute stored on it or on an alias of it (``backend.x = ...``, ``setattr(backend,
    ...)``), a method of it called with arguments (``backend.configure(pool)``), or the object
    handed to a function of the module or of another (``is_helper``: ``attach(backend,
    runner)``). Only a function that can reach pool state is one: it reads a
    runner, the pool, the allocator or an SWA name. The class analysis reads each as a method
    of that backend (``builder_method``)."""
    if type(function) is not ast.FunctionDef or function.name.startswith(TEST_PREFIX):
        return []  # (a test builds a backend to try it, it serves nothing)
    built: Dict[str, list] = {}
    kinds: Dict[str, Optional[ast.expr]] = {}
    keeps, aliases, reaches = set(), {}, False
    for node in nodes_under(function):
        kind = type(node)
        if kind is ast.Assign:
            value = node.value
            if len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                if type(value) is ast.Call and is_backend(value.func):
                    built.setdefault(node.targets[0].id, []).append(node)
                    kinds[node.targets[0].id] = value.func
                elif type(value) is ast.Name:
                    aliases[node.targets[0].id] = value.id  # ``b = backend``
        elif kind is ast.Attribute:
            if type(node.ctx) is ast.Store and type(node.value) is ast.Name:
                keeps.add(node.value.id)
            reaches = reaches or _reaches_pool(node.attr)
        elif kind is ast.Name:
            reaches = reaches or _reaches_pool(node.id)
        elif kind is ast.arg:
            reaches = reaches or _reaches_pool(node.arg)
        elif kind is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id == "setattr" and node.args:
                keeps.add(getattr(node.args[0], "id", ""))
            elif type(func) is ast.Attribute and type(func.value) is ast.Name and (
                    node.args or node.keywords):  # backend.configure(pool): its method may
                keeps.add(func.value.id)  # keep what it is handed
            elif is_helper(func):
                keeps.update(a.id for a in node.args if type(a) is ast.Name)
    if not reaches:
        return []
    for alias, name in aliases.items():
        if alias in keeps:
            keeps.add(name)
    args = function.args
    for param in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        named = param.arg.lower()
        annotation = param.annotation
        if type(annotation) is ast.Constant and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                annotation = None  # (no class name that Python would read there)
        typed = annotation is not None and type(annotation) in (ast.Name, ast.Attribute) and (
            is_backend(annotation))
        if param.arg in keeps and param.arg not in built and param.arg not in (
                INSTANCE, "cls") and (typed or annotation is None and _handed(named)):
            built[param.arg] = []
            kinds[param.arg] = annotation if typed else None
    return [(name, kinds[name], (*made, *(
        assign for assign in nodes_under(function) if type(assign) is ast.Assign
        and len(assign.targets) == 1 and type(assign.targets[0]) is ast.Name
        and aliases.get(assign.targets[0].id) == name and type(assign.value) is ast.Name)))
        for name, made in built.items() if name in keeps]


def hands_backend(function: ast.AST, index: int) -> bool:
    """``function``'s positional parameter ``index`` is one a backend is handed to by name
    (``backend``, ``*_backend``) or by a backend class annotating it: a builder of its own
    (``built_backends``), reported at its own lines whoever calls it."""
    positional = [*function.args.posonlyargs, *function.args.args]
    if index >= len(positional):
        return False
    param = positional[index]
    named = param.arg.lower()
    annotation = param.annotation
    if annotation is not None:
        text = const_str(annotation) or last_name(annotation)
        return bool(text) and text.endswith(BACKEND_SUFFIX)
    return _handed(named)


def _handed(named: str) -> bool:
    """A parameter name (lower case) a backend is handed by: ``backend``, ``*_backend``."""
    return named == HANDED or named.endswith("_" + HANDED)


def _reaches_pool(name: str) -> bool:
    """A name a function reaches pool state through: a runner, the pool or its accessor, the
    allocator, an SWA name."""
    return name.lower().endswith(RUNNER_WORD) or name in POOL_NAMES or is_swa_word(name)


def builder_method(function: ast.FunctionDef, name: str, constructions: tuple,
                   owner: str = "") -> ast.AST:
    """``function`` as a method of the backend it keeps state on: the local or parameter
    ``name`` holding it is ``self`` (a parameter ``self`` added where it was a local), and so
    is each alias of it (``target = backend``); its construction and those aliasings a
    ``pass`` (what the constructor keeps is the class's own), no decorators (a registering
    decorator runs nothing of it). A method of class ``owner`` (a multi-step wrapper, a
    composite backend) is named ``owner.method``, its own first parameter ``_owner``: what it
    keeps on itself is not the built backend's. Its nodes keep their positions."""
    memo: dict = {}
    copied = copy.deepcopy(function, memo)
    made = {id(memo[id(s)]) for s in constructions if id(s) in memo}
    renames = {name: INSTANCE}
    if owner:
        copied.name = f"{owner}.{function.name}"
        positional = [*function.args.posonlyargs, *function.args.args]
        if positional and "staticmethod" not in {last_name(d) for d in function.decorator_list}:
            renames[positional[0].arg] = OWNER
    renames.update((s.targets[0].id, INSTANCE) for s in constructions
                   if type(s.value) is ast.Name)
    if made:
        copied = _Unbuilt(made).visit(copied)
    copied = _Renamer(renames, {}).visit(copied)
    copied.decorator_list = []
    if any(type(s.value) is not ast.Name for s in constructions):
        own = ast.arg(arg=INSTANCE, annotation=None)
        ast.copy_location(own, function)
        own.end_lineno, own.end_col_offset = function.lineno, function.col_offset
        copied.args.posonlyargs.insert(0, own) if copied.args.posonlyargs else (
            copied.args.args.insert(0, own))
    setattr(copied, BUILDER_MARK, name)  # (what the builder calls the backend)
    return copied


class _Unbuilt(ast.NodeTransformer):
    """The statements of ids ``made`` (a backend's construction) become ``pass``."""

    def __init__(self, made: set) -> None:
        self.made = made

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if id(node) in self.made:
            return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)


def builder_class(name: str, base: Optional[ast.expr], methods: list, at: ast.AST) -> ast.ClassDef:
    """A class statement named ``name`` (no class of the module is: ``<builder ...>``) whose
    methods are builders' (``builder_method``) of backends of class ``base`` (None: a backend
    of no class known, ``AttentionBackend``), placed at ``at``: the analysis reads them as a
    heir of that class. Its findings are the builders' own lines; it offers no fix."""
    if base is None:
        base = ast.Name(id="AttentionBackend", ctx=ast.Load())
    node = ast.ClassDef(name=name, bases=[base], keywords=[], body=list(methods),
                        decorator_list=[])
    if "type_params" in ast.ClassDef._fields:  # (Python 3.12+)
        node.type_params = []
    ast.copy_location(node, at)
    node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    setattr(node, BUILDER_MARK, True)
    return node
