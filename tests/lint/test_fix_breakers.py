"""A safe fix never breaks code (issues 14 and 16, item 8), shown through the real CLI.

Each case is a working backend module plus one thing that would make the KVP002/KVP003 fixes
wrong: ``__slots__`` naming the flag, a class-level default after the methods, a subclass
default or slot, a metaclass, a class decorator, attribute hooks, ``del self.<flag>``,
``setattr`` with a computed name, ``__dict__`` writes, probes of the class, reads through
``cls``, a redefined ``__init__``, a dropped value with a side effect or that is not a bool,
a data descriptor named like the flag, a deleted or reassigned pool. For every case:

* ``poolguard lint --format json`` offers no safe fix (no ``[*]``), and ``--fix`` leaves the
  file byte for byte as it was, while the plain module of the same shape *is* fixed;
* the module imports and behaves the same after ``--fix`` (a harness imports every module and
  records what its backends answer on an SWA and a non-SWA runner);
* the case is a real breaker: the same change applied to the fixed plain module (what a fixer
  that did not look would have written) imports wrongly or answers differently.

A few shapes that look close but are safe are fixed and behave the same.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import poolguard, write

PRELUDE = '''\
from types import SimpleNamespace as NS


class SWAKVPool:
    pass


class AttentionBackend:
    pass


def runner(swa):
    pool = SWAKVPool() if swa else object()
    return NS(token_to_kv_pool=pool, token_to_kv_pool_allocator=NS(get_kvcache=lambda: pool))


'''
RESOLVE = '''
    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None
'''
CLASS = "class DemoAttnBackend(AttentionBackend):\n"
STORE = "        self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)\n"
TABLE = '        return "swa" if self.use_swa else "full"\n'
# KVP002: a flag decided from the pool type; the fix makes it a property of the pool
FLAG = (PRELUDE + CLASS + "    def __init__(self, model_runner):\n"
        "        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)\n" + STORE + RESOLVE
        + "\n    def table(self):\n" + TABLE)
GATE_TABLE = '        return "swa" if self.use_sliding_window_kv_pool else "full"\n'
TABLE_DEF = "    def table(self):\n"
# KVP003: a gate on an exact mirror of the pool; the fix gates on the pool itself. The resolver
# is a lambda the lint cannot prove asks the allocator: a mirror of a proven resolver is no
# finding at all (only when nothing below can make the two disagree).
GATE = (PRELUDE + "resolve_pool = lambda model_runner: next(iter(filter(lambda p: isinstance("
        "p, SWAKVPool), [model_runner.token_to_kv_pool_allocator.get_kvcache()])), None)\n\n\n"
        + CLASS + "    def __init__(self, model_runner):\n"
        "        self._swa_kv_pool = resolve_pool(model_runner)\n"
        "        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None\n"
        + "\n    def table(self):\n" + GATE_TABLE)

META = '''\
class Meta(type):
    def __new__(mcs, name, bases, namespace):
        namespace = {k: v for k, v in namespace.items() if not isinstance(v, property)}
        return super().__new__(mcs, name, bases, namespace)


'''
DECORATOR = '''\
def with_default(cls):
    class Wrapped(cls):
        use_swa = False

    return Wrapped


'''
CONST = '''\
class Const:
    def __get__(self, obj, owner=None):
        return False

    def __set__(self, obj, value):
        pass


'''


def _after(anchor: str, text: str) -> tuple:
    return (anchor, anchor + text)


def _method(anchor: str, body: str) -> tuple:
    return _after(anchor, "\n" + body)


def _gate_method(body: str) -> tuple:
    """A method placed before ``table`` (whose gate the fix rewrites)."""
    return (TABLE_DEF, body + "\n" + TABLE_DEF)


# name -> (plain module, [(old, new) text replacements]); old texts survive the plain fix
# unless the case changes the fixed statement itself
BREAKERS = {
    "slots": (FLAG, [_after(CLASS, '    __slots__ = ("_swa_kv_pool", "use_swa")\n\n')]),
    "default_after_methods": (FLAG, [_method(TABLE, "    use_swa = False\n")]),
    "subclass_default": (FLAG, [_after(TABLE, "\n\nclass DraftAttnBackend(DemoAttnBackend):\n"
                                              "    use_swa = False\n")]),
    "subclass_slots": (FLAG, [_after(TABLE, "\n\nclass DraftAttnBackend(DemoAttnBackend):\n"
                                            '    __slots__ = ("use_swa",)\n')]),
    "metaclass": (FLAG, [(CLASS, META + "class DemoAttnBackend(AttentionBackend, "
                                        "metaclass=Meta):\n")]),
    "class_decorator": (FLAG, [(CLASS, DECORATOR + "@with_default\n" + CLASS)]),
    "setattr_hook": (FLAG, [_method(TABLE, "    def __setattr__(self, name, value):\n"
                                           '        if name == "use_swa":\n'
                                           "            value = not value\n"
                                           "        super().__setattr__(name, value)\n")]),
    "del_flag": (FLAG, [_method(TABLE, "    def reset(self):\n        del self.use_swa\n")]),
    "computed_setattr": (FLAG, [_method(TABLE, "    def disable(self):\n"
                                               '        for name in ("use_swa",):\n'
                                               "            setattr(self, name, False)\n")]),
    "dict_write": (FLAG, [_method(TABLE, "    def disable(self):\n"
                                         '        self.__dict__["use_swa"] = False\n')]),
    "class_probe": (FLAG, [_method(TABLE, "    def describe(self):\n"
                                          '        return hasattr(type(self), "use_swa")\n')]),
    "class_read": (FLAG, [_method(TABLE, "    @classmethod\n    def default(cls):\n"
                                         "        try:\n            return cls.use_swa\n"
                                         "        except AttributeError:\n"
                                         '            return "instance only"\n')]),
    "redefined_init": (FLAG, [_method(TABLE, "    def __init__(self, model_runner):\n"
                                             "        self._swa_kv_pool = None\n")]),
    "side_effect_in_value": (FLAG, [
        (STORE, STORE.replace("isinstance(model_runner.token_to_kv_pool",
                              "isinstance(self._note(model_runner.token_to_kv_pool)")),
        _method(TABLE, "    def _note(self, pool):\n        self.noted = True\n"
                       "        return pool\n")]),
    "value_is_a_table": (FLAG, [
        (STORE, "        self.use_swa = {0: isinstance(model_runner.token_to_kv_pool, "
                "SWAKVPool)}\n"),
        (TABLE, '        return "swa" if self.use_swa[0] else "full"\n')]),
    "value_not_a_bool": (FLAG, [
        (STORE, '        self.use_swa = "swa" if isinstance(model_runner.token_to_kv_pool, '
                'SWAKVPool) else ""\n'),
        _method(TABLE, "    def describe(self):\n        return self.use_swa\n")]),
    "gate_pool_deleted": (GATE, [_gate_method("    def release(self):\n"
                                              "        del self._swa_kv_pool\n")]),
    "gate_pool_set_by_computed_name": (GATE, [_gate_method((
        "    def detach(self):\n        for name in (\"_swa_kv_pool\",):\n"
        "            setattr(self, name, None)\n"))]),
    "gate_flag_is_a_descriptor": (GATE, [
        (CLASS, CONST + CLASS + "    use_sliding_window_kv_pool = Const()\n\n")]),
    "gate_setattr_hook": (GATE, [_gate_method((
        "    def __setattr__(self, name, value):\n"
        '        if name == "use_sliding_window_kv_pool":\n            value = False\n'
        "        super().__setattr__(name, value)\n"))]),
}
# close to a breaker, but safe: these are fixed, and behave the same
SAFE_SHAPES = {
    "flag": (FLAG, []),
    "gate": (GATE, []),
    "base_outside_the_backends_has_a_default": (FLAG, [
        ("class AttentionBackend:\n    pass\n", "class AttentionBackend:\n    use_swa = False\n")]),
    "gate_flag_has_a_plain_class_default": (GATE, [
        _after(CLASS, "    use_sliding_window_kv_pool = False\n\n")]),
    "slots_elsewhere_in_the_file": (FLAG, [_after(TABLE, (
        '\n\nclass Record:\n    __slots__ = ("use_swa",)\n'))]),
}

# Imports each module by path and records, per backend class and runner, what it answers:
# after the mutators a case defines, ``table()`` and the probes; errors are recorded as such.
HARNESS = r'''
import importlib.util, json, sys
from pathlib import Path

def shown(value):
    return value if isinstance(value, (str, bool, int, type(None))) else type(value).__name__

def attempt(call):
    try:
        return shown(call())
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"

def observe(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        return f"import: {type(exc).__name__}: {exc}"
    found = {}
    base = next(v for k, v in vars(module).items() if k.endswith("AttentionBackend"))
    for name, cls in sorted(vars(module).items()):
        if not (isinstance(cls, type) and issubclass(cls, base)) or cls is base:
            continue
        for swa in (True, False):
            key = f"{name}/{'swa' if swa else 'full'}"
            try:
                obj = cls(module.runner(swa))
            except Exception as exc:
                found[key] = f"init: {type(exc).__name__}: {exc}"
                continue
            row = [attempt(getattr(obj, m)) for m in ("disable", "reset", "release", "detach")
                   if hasattr(obj, m)]
            row += [attempt(getattr(obj, m)) for m in ("table", "describe", "default")
                    if hasattr(obj, m)]
            row.append(attempt(lambda: obj.noted) if hasattr(obj, "noted") else None)
            found[key] = row
    return found

print(json.dumps({p.name: observe(p) for p in sorted(Path(sys.argv[1]).glob("*.py"))}))
'''


def _build(plain: str, replacements: list) -> str:
    source = plain
    for old, new in replacements:
        assert source.count(old) == 1, (old, source)
        source = source.replace(old, new)
    return source


def _named(source: str, case: str) -> str:
    """Backend classes named after the case: ``poolguard lint .`` reads the folder as one
    package, where same-named classes of sibling modules would be one another's relatives."""
    prefix = "".join(part.title() for part in case.split("_"))
    return source.replace("DemoAttnBackend", f"{prefix}AttnBackend").replace(
        "DraftAttnBackend", f"{prefix}DraftAttnBackend").replace(
        "AttentionBackend", f"{prefix}AttentionBackend")


def _unnamed(source: str, case: str) -> str:
    prefix = "".join(part.title() for part in case.split("_"))
    return source.replace(f"{prefix}AttentionBackend", "AttentionBackend").replace(
        f"{prefix}DraftAttnBackend", "DraftAttnBackend").replace(
        f"{prefix}AttnBackend", "DemoAttnBackend")


def _observe(folder: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", HARNESS, str(folder)], capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def fixed_trees(tmp_path_factory):
    """Every case linted (json) and fixed through the real CLI, and observed before and after."""
    root = tmp_path_factory.mktemp("breakers")
    cases = {**BREAKERS, **SAFE_SHAPES}
    before = write(root / "before", {f"{n}.py": _named(_build(*c), n) for n, c in cases.items()})
    after = root / "after"
    shutil.copytree(before, after)
    # each file alone: these are one-file shapes, and files linted together are one package,
    # where one module's binding of the flag on another object declines every module's fix
    # (tests/lint/test_attacks21.py)
    findings = []
    for name in sorted(cases):
        listed = poolguard("lint", "--isolated", "--no-cache", "--format", "json", f"{name}.py",
                           cwd=after)
        findings += json.loads(listed.stdout)
        poolguard("lint", "--isolated", "--no-cache", "--fix", f"{name}.py", cwd=after)
    return {"before": before, "after": after, "findings": findings,
            "observed_before": _observe(before), "observed_after": _observe(after)}


# breakers the analysis reads through: no stored state is left for a finding to name
READ_THROUGH = {
    "gate_flag_is_a_descriptor": "the class's data descriptor answers every read of the flag "
    "(its __get__ keeps nothing): the flag is no stored state, so nothing goes stale",
}


@pytest.mark.parametrize("name", sorted(BREAKERS))
def test_no_safe_fix_is_offered_where_it_could_break(fixed_trees, name):
    rows = [r for r in fixed_trees["findings"] if r["path"] == f"{name}.py"]
    assert rows or name in READ_THROUGH, f"{name}: the hazard itself must still be reported"
    assert not any(r["fixable"] for r in rows), rows
    assert all(fix["applicability"] != "safe" for r in rows for fix in r["fixes"]), rows
    old = (fixed_trees["before"] / f"{name}.py").read_bytes()
    assert (fixed_trees["after"] / f"{name}.py").read_bytes() == old
    assert fixed_trees["observed_after"][f"{name}.py"] == fixed_trees["observed_before"][
        f"{name}.py"]


@pytest.mark.parametrize("name", sorted(SAFE_SHAPES))
def test_safe_shapes_are_fixed_and_behave_the_same(fixed_trees, name):
    rows = [r for r in fixed_trees["findings"] if r["path"] == f"{name}.py"]
    assert any(r["fixable"] for r in rows), rows
    old = (fixed_trees["before"] / f"{name}.py").read_text()
    new = (fixed_trees["after"] / f"{name}.py").read_text()
    assert new != old
    observed = fixed_trees["observed_after"][f"{name}.py"]
    assert observed == fixed_trees["observed_before"][f"{name}.py"]
    assert "swa" in json.dumps(observed) and "full" in json.dumps(observed)


def test_every_breaker_is_real(fixed_trees, tmp_path):
    """The case's change applied to the fixed plain module, as a fixer that did not look would
    have left it: each fails to import or answers differently from the unfixed module."""
    fixed_plain = {
        FLAG: _unnamed((fixed_trees["after"] / "flag.py").read_text(), "flag"),
        GATE: _unnamed((fixed_trees["after"] / "gate.py").read_text(), "gate"),
    }
    naive = {  # the flag's statement is what the fix drops: its variants go with it
        name: _named(_build(fixed_plain[plain], [(o, n) for o, n in replacements if o != STORE]),
                     name)
        for name, (plain, replacements) in BREAKERS.items()
    }
    observed = _observe(write(tmp_path / "naive", {f"{n}.py": s for n, s in naive.items()}))
    same = [n for n in naive if observed[f"{n}.py"] == fixed_trees["observed_before"][f"{n}.py"]]
    assert not same, f"not a breaker: {same}"
