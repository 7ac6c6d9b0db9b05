"""A class flow is taken from an earlier run only when it would compute the same (``package``).

A heir's flow as its mixins see it (each mixin bare) and its full flow differ in the mixins'
summaries; the full one takes the earlier run only where the entries that differ were never
read by it. Any use of a summary table other than by key counts as reading it whole.
"""
from __future__ import annotations

import ast

from lint_rules.package import ClassSummary, _agrees, _logged
from lint_rules.rules._flow import CLEAN, Taint

NODE = ast.parse("class H: pass").body[0]
STALE = Taint.STALE


def _mixin(returns: dict, flags: frozenset = frozenset()) -> ClassSummary:
    return ClassSummary("M", False, {"kv": STALE}, {}, returns, flags)


def _inputs(summary: ClassSummary) -> tuple:
    return ((NODE, (summary,), ()),)


def test_unread_entries_may_differ():
    bare, full = _mixin({"probe": CLEAN}), _mixin({"probe": STALE})
    reads: dict = {}
    seen = _logged(bare, reads, (0, 0))
    assert seen.stores.get("kv") == STALE and "probe" not in seen.properties
    assert _agrees(_inputs(bare), _inputs(full), reads)


def test_a_read_entry_that_differs_refuses():
    bare, full = _mixin({"probe": CLEAN}), _mixin({"probe": STALE})
    reads: dict = {}
    assert "probe" in _logged(bare, reads, (0, 0)).returns
    assert not _agrees(_inputs(bare), _inputs(full), reads)


def test_a_table_read_whole_refuses():
    bare, full = _mixin({"probe": CLEAN}), _mixin({"probe": STALE})
    for use in (list, len, dict, lambda t: t.items(), lambda t: {**t}, lambda t: t == {}):
        reads: dict = {}
        use(_logged(bare, reads, (0, 0)).returns)
        assert not _agrees(_inputs(bare), _inputs(full), reads), use


def test_flags_and_shape_must_match():
    bare, flagged = _mixin({}), _mixin({}, frozenset({"kv"}))
    assert not _agrees(_inputs(bare), _inputs(flagged), {})
    assert not _agrees(_inputs(bare), ((NODE, (), ()),), {})
    assert _agrees(_inputs(bare), _inputs(_mixin({})), {})  # equal summaries: nothing to read
