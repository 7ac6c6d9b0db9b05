"""Which objects a wrapper backend hands the swapped pool to.

A FROZEN_KV MTP swap rebinds the wrapper's ``token_to_kv_pool``; the inner backends it keeps go
on reading the pool they were built with unless the wrapper passes the new one on. A
``token_to_kv_pool`` setter does that only for the objects it gives the new pool to: ``inner.
token_to_kv_pool = pool`` (or any store into the inner), ``setattr(inner, "token_to_kv_pool",
pool)``, a call passing the pool (``inner.use_pool(pool)``, ``rebind(inner, pool)``, a method
of the wrapper that does one of those), over any loop or comprehension of the inners. The new
pool is the setter's value, a name or ``self`` attribute it was copied to, or
``self.token_to_kv_pool`` read back; a setter storing it only on ``self`` (or handing something
else) reaches nothing. Another method binding ``<other>.token_to_kv_pool`` reaches that other
object, whatever it binds (as before).

An object is named by the ``self`` attribute holding it (``self.backends`` for every backend of
that list or dict): ``handed_to`` answers those names, and ``kept_in`` says which parameters and
constructor calls a method keeps in them, the inners a finding is about.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Set, Tuple

from lint_rules.rules._flow import const_str, is_self, nodes_under, params_of
from lint_rules.rules._vocab import ACTIVE_POOL

_ADDING = frozenset({"append", "appendleft", "extend", "insert", "add", "update", "setdefault"})
_MAX_HOPS = 3  # a setter calling a method of the wrapper calling another: deeper is not followed


def root_attr(node: ast.AST) -> Optional[str]:
    """``X`` for ``self.X``, ``self.X.y``, ``self.X[k]``, ``self.X.values()``,
    ``getattr(self, "X")``: the attribute of ``self`` an expression reads its object from."""
    while True:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(
                    node.args) >= 2 and is_self(node.args[0]):
                return const_str(node.args[1])
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute):
            if is_self(node.value):
                return node.attr
            node = node.value
        else:
            return None


class _Bindings:
    """What each local name of a function was bound to: assignments, ``for`` targets and
    comprehension targets (the iterable, for a loop), walrus targets."""

    def __init__(self, function: ast.AST) -> None:
        self.values: Dict[str, List[ast.AST]] = {}
        for node in nodes_under(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                self._bind(node.target, node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind(node.target, node.iter)

    def _bind(self, target: ast.AST, value: ast.AST) -> None:
        for name in nodes_under(target):
            if isinstance(name, ast.Name):
                self.values.setdefault(name.id, []).append(value)

    def holders(self, node: ast.AST, methods: Optional[Dict[str, ast.AST]] = None) -> Set[str]:
        """The ``self`` attributes whose objects ``node`` may be (through locals bound to
        them, loops over them, displays of them; with the class's ``methods``, what a method
        of it returns: ``for child in self._children():``)."""
        found: Set[str] = set()
        todo, seen = [node], set()
        while todo:
            value = todo.pop()
            for part in nodes_under(value):
                attr = root_attr(part) if isinstance(part, (ast.Attribute, ast.Call)) else None
                if attr is not None and methods and attr in methods:
                    method = methods[attr]  # (one hop: what it returns, not what it calls)
                    returned = _Bindings(method)
                    for ret in nodes_under(method):
                        if isinstance(ret, ast.Return) and ret.value is not None:
                            found |= returned.holders(ret.value)
                elif attr is not None and attr != ACTIVE_POOL:
                    found.add(attr)
                elif isinstance(part, ast.Name) and part.id not in seen:
                    seen.add(part.id)
                    todo.extend(self.values.get(part.id, ()))
        return found


def _fresh(function: ast.AST, given: Iterable[str], kept: Iterable[str]) -> Tuple[set, set]:
    """(names, self attributes) holding the new pool in ``function``: the parameters
    ``given``, the attributes ``kept`` (stored by its caller) and ``self.token_to_kv_pool``, and
    what is copied from them (``p = pool``, ``self._pool = pool``)."""
    names, attrs = set(given), {ACTIVE_POOL, *kept}
    grew = True
    while grew:
        grew = False
        for node in nodes_under(function):
            if isinstance(node, ast.Assign) and _is_fresh(node.value, names, attrs):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id not in names:
                        names.add(target.id)
                        grew = True
                    elif (isinstance(target, ast.Attribute) and is_self(target.value)
                          and target.attr not in attrs):
                        attrs.add(target.attr)
                        grew = True
    return names, attrs


def _is_fresh(node: Optional[ast.AST], names: set, attrs: set) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return isinstance(node, ast.Attribute) and is_self(node.value) and node.attr in attrs


def _reached(function: ast.AST, given: Optional[Iterable[str]], methods: Dict[str, ast.AST],
             hops: int, kept: Iterable[str] = ()) -> Set[str]:
    """The ``self`` attributes ``function`` hands the new pool to (``given``: the parameters
    holding it, ``kept``: the attributes its caller stored it in; None: any value bound to
    ``<other>.token_to_kv_pool`` counts, no call does)."""
    bindings = _Bindings(function)
    names, attrs = _fresh(function, given or (), kept)

    def fresh(node: Optional[ast.AST]) -> bool:
        return given is None or _is_fresh(node, names, attrs)

    found: Set[str] = set()
    for node in nodes_under(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                if _hands_by_store(target, given is None) and fresh(node.value):
                    found |= bindings.holders(target.value, methods)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(
                    node.args) == 3:
                if const_str(node.args[1]) == ACTIVE_POOL and fresh(node.args[2]):
                    found |= bindings.holders(node.args[0])
            elif given is not None:
                found |= _call_reaches(node, fresh, bindings, methods, (hops, attrs))
    return found


def _hands_by_store(target: ast.AST, binding_only: bool) -> bool:
    """A store into another object: ``<other>.token_to_kv_pool = ...``; with the new pool
    known, any store into one (``inner.__dict__["token_to_kv_pool"] = pool``, ``inner.kv =
    pool``), never ``self.x = pool`` (kept on the wrapper)."""
    if isinstance(target, ast.Attribute):
        return not is_self(target.value) and (target.attr == ACTIVE_POOL or not binding_only)
    return isinstance(target, ast.Subscript) and not binding_only


def _call_reaches(call: ast.Call, fresh, bindings: _Bindings, methods: Dict[str, ast.AST],
                  where: tuple) -> Set[str]:
    """A call given the new pool: the objects it is called on or given beside it, and, for a
    method of the wrapper, what that method hands it to."""
    hops, kept = where
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not any(map(fresh, arguments)):
        func = call.func  # self._hand_on(): a method reading what the setter stored on self
        if isinstance(func, ast.Attribute) and is_self(func.value) and func.attr in methods \
                and hops < _MAX_HOPS:
            return _reached(methods[func.attr], (), methods, hops + 1, kept)
        return set()
    func = call.func
    if isinstance(func, ast.Attribute) and is_self(func.value) and func.attr in methods:
        if hops >= _MAX_HOPS:
            return set()
        method = methods[func.attr]
        params = params_of(method)
        given = {params[i] for i, a in enumerate(call.args) if i < len(params) and fresh(a)}
        given |= {k.arg for k in call.keywords if k.arg and fresh(k.value)}
        return _reached(method, given, methods, hops + 1, kept)
    found = bindings.holders(func.value) if isinstance(func, ast.Attribute) else set()
    for argument in arguments:
        if not fresh(argument):
            found |= bindings.holders(argument)
    return found


def handed_to(setters: Iterable[ast.AST], binders: Iterable[ast.AST],
              methods: Dict[str, ast.AST]) -> frozenset:
    """The ``self`` attributes holding objects the swapped pool reaches: through each
    ``token_to_kv_pool`` setter (its value parameter is the new pool) and each other method
    binding ``<other>.token_to_kv_pool``."""
    found: Set[str] = set()
    for setter in setters:
        params = params_of(setter)
        found |= _reached(setter, params[:1], methods, 0)
    for method in binders:
        found |= _reached(method, None, methods, _MAX_HOPS)
    return frozenset(found)


def kept_in(function: ast.AST, attrs: frozenset) -> Tuple[Set[str], Set[int]]:
    """(names, callees): the names (parameters, locals) and the constructor calls (``id`` of
    each call's ``func``) whose objects ``function`` keeps in ``self.<attr>`` for an attribute
    of ``attrs``: assigned to it or into it (``self.x[k] = v``, a display), added to it
    (``self.x.append(v)``), directly or through a local."""
    bindings = _Bindings(function)
    kept: List[ast.AST] = []
    for node in nodes_under(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = getattr(node, "targets", None) or [node.target]
            if any(root_attr(t) in attrs for t in targets):
                kept.append(node.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _ADDING and root_attr(node.func.value) in attrs):
            kept.extend([*node.args, *(k.value for k in node.keywords)])
    names: Set[str] = set()
    callees: Set[int] = set()
    while kept:
        for part in nodes_under(kept.pop()):
            if isinstance(part, ast.Name) and part.id not in names:
                names.add(part.id)
                kept.extend(bindings.values.get(part.id, ()))
            elif isinstance(part, ast.Call):
                callees.add(id(part.func))
    return names, callees
