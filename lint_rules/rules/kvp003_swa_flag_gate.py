"""KVP003: control flow gated on a boolean SWA flag instead of the resolved pool object.

Also home of the read rewrite that KVP002 and KVP004 reuse when they drop a flag.
"""
from __future__ import annotations

import re
from textwrap import dedent
from typing import Optional

import libcst as cst

from lint_rules.options import Options
from lint_rules.rules._base import Invalid, Rule, Valid
from lint_rules.rules._facts import DEFAULT_FLAG, BoolRead, FileContext, self_attr

PURE_CALLS = frozenset({"isinstance", "issubclass", "type", "getattr", "hasattr", "bool", "len"})


def flag_defs(ctx: FileContext) -> dict:
    """KVP002 candidates by flag name (filled by KVP002's visitor during the pass)."""
    return ctx.shared.setdefault("KVP002", {})


def _pool_compare(pool_attr: str, is_none: bool) -> cst.Comparison:
    operator = cst.Is() if is_none else cst.IsNot()
    return cst.Comparison(
        left=cst.Attribute(cst.Name("self"), cst.Name(pool_attr)),
        comparisons=[cst.ComparisonTarget(operator, cst.Name("None"))],
    )


def _parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _had_parens(read: BoolRead) -> bool:
    return bool(read.target.lpar or read.attr.lpar)


def _before_pool_resolved(ctx: FileContext, read: BoolRead) -> bool:
    """True when the read may run in ``__init__`` before ``self.<pool_attr>`` is assigned."""
    cls = read.cls
    assigned = cls.pool_assigned.get("__init__", []) if cls else []
    if read.method == "__init__":
        return not any(tick < read.tick for tick in assigned)
    calls = cls.init_calls.get(read.method, []) if cls else []
    return any(not any(tick < call for tick in assigned) for call in calls)


def _inline_definition(ctx: FileContext, read: BoolRead) -> Optional[cst.BaseExpression]:
    """The flag's own defining expression, when re-evaluating it at the read is equivalent."""
    name = read.attr.attr.value
    defs = flag_defs(ctx).get(name, [])
    stores = [use for use in ctx.attr_uses.get(name, ()) if use.role == "store"]
    if len(defs) != 1 or len(stores) != 1:
        return None
    flag = defs[0]
    if flag.cls is not read.cls or flag.method != read.method or flag.tick > read.tick:
        return None
    for node in _walk(flag.value):
        if isinstance(node, cst.Call) and not (
            isinstance(node.func, cst.Name) and node.func.value in PURE_CALLS
        ):
            return None  # a call may have side effects or differ when run again
        if isinstance(node, cst.Name):
            ticks = ctx.local_stores.get((id(flag.function), node.value), [])
            if any(tick > flag.tick for tick in ticks):
                return None
        attr = self_attr(node)
        if attr is not None:
            uses = ctx.attr_uses.get(attr, ())
            if any(u.role == "store" and u.cls is flag.cls and u.tick > flag.tick for u in uses):
                return None
    value = _compact(flag.value.with_changes(lpar=[], rpar=[]))
    if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return value.with_changes(lpar=read.attr.lpar, rpar=read.attr.rpar)
    return _parenthesized(value)


def _compact(value: cst.BaseExpression) -> cst.BaseExpression:
    """A copy of ``value`` on one line when that is safe (no strings or comments inside)."""
    code = cst.Module(body=[]).code_for_node(value)
    if any(mark in code for mark in ("#", "'", '"')):
        return value.deep_clone()
    flat = re.sub(r"\s*([)\],])", r"\1", re.sub(r"([(\[])\s*", r"\1", " ".join(code.split())))
    flat = re.sub(r",(?=[)\]])", "", flat)  # a trailing comma left by a multi-line call
    try:
        return cst.parse_expression(flat)
    except cst.ParserSyntaxError:
        return value.deep_clone()


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def rewrite_read(ctx: FileContext, read: BoolRead, inverted: bool = False) -> Optional[dict]:
    """Edits that replace one flag read by the pool test; None when that is not safe.

    ``inverted`` is for a mirror that means "no SWA pool" (``flag = pool is None``).
    """
    cache = ctx.shared.setdefault("rewrites", {})
    key = (id(read.attr), inverted)
    if key in cache:
        return cache[key]
    edits = None
    if ctx.provides_pool(read.cls):
        if _before_pool_resolved(ctx, read):
            inline = None if inverted else _inline_definition(ctx, read)
            if inline is not None:
                edits = {id(read.attr): (read.attr, inline)}
        else:
            new = _pool_compare(ctx.options.pool_attr, is_none=read.negated != inverted)
            if _had_parens(read):
                new = _parenthesized(new)
            edits = {id(read.target): (read.target, new)}
    cache[key] = edits
    return edits


def drop_flag_edits(ctx: FileContext, name: str, statement: cst.CSTNode, cls, inverted=False):
    """Edits that drop the one assignment of ``self.<name>`` and rewrite every read; or None."""
    slot = ctx.shared.get("slots", {}).get(id(statement))
    if slot is None or slot.block is None or name in ctx.strings or not ctx.provides_pool(cls):
        return None
    edits = {id(slot.line): (slot.line, cst.RemovalSentinel.REMOVE)}
    uses = ctx.attr_uses.get(name, ())
    if sum(use.role == "store" for use in uses) != 1:
        return None
    reads = {id(read.attr): read for read in ctx.bool_reads}
    for use in uses:
        if use.role == "store":
            continue
        read = reads.get(id(use.node))
        edit = rewrite_read(ctx, read, inverted) if read is not None else None
        if edit is None:
            return None
        edits.update(edit)
    return edits


class SwaFlagGate(Rule):
    """Control flow gated on a boolean SWA flag rather than on the resolved pool object.

    A flag such as ``use_sliding_window_kv_pool`` is a second source of truth: when the pool is
    swapped per forward (FROZEN_KV MTP / EAGLE drafts) or re-resolved by a subclass, the flag
    and ``self._swa_kv_pool`` disagree, SWA layers get full-pool indices and the kernel reads
    out of bounds. Flagged: ``self.<flag>`` as the test of ``if``/``elif``/``while``/a ternary/
    ``assert`` or an operand of ``and``/``or``/``not`` (also through a local alias,
    ``has_swa = self.<flag>`` then ``if has_swa:``), in an attention backend, where the flag
    is ``use_sliding_window_kv_pool`` (always, even when it mirrors the pool, as upstream
    0.5.18+ does), an attribute KVP002 finds in the file, or a name given with
    ``--kvp-swa-flags``. The fix reads the pool attribute instead (``--kvp-pool-attr``); it is
    offered when the class (or a base class in the same file) assigns that attribute, and not
    for a read in ``__init__`` before the attribute exists, unless the flag's own definition
    can be inlined there.
    """

    CODE = "KVP003"
    NAME = "swa-flag-gate"
    FIXABLE = True
    MESSAGE = (
        "control flow gated on SWA flag self.{attr}, which disagrees with the pool actually "
        "used once token_to_kv_pool is swapped per forward (FROZEN_KV MTP / EAGLE drafts), "
        "sending full-pool indices to SWA layers (illegal memory access) — gate on "
        "self.{pool_attr} is not None"
    )

    def finish(self) -> None:
        flags = {DEFAULT_FLAG, *flag_defs(self.ctx), *self.ctx.options.swa_flags}
        for read in self.ctx.bool_reads:
            name = read.attr.attr.value
            if name in flags and read.cls is not None and read.cls.is_backend:
                self.report(read.attr, rewrite_read(self.ctx, read), attr=name)


SwaFlagGate.VALID = (
    Valid(
        dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def _maybe_translate(self, loc):
                    if self._swa_kv_pool is None:
                        return loc
                    return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

                def _table(self, metadata):
                    # a local named like the flag is not backend state
                    use_sliding_window_kv_pool = metadata.swa_page_table is not None
                    return metadata.swa_page_table if use_sliding_window_kv_pool else None
            """
        )
    ),
)

SwaFlagGate.INVALID = (
    Invalid(
        dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    super().__init__(model_runner)
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                def _maybe_translate(self, loc):
                    if not self.use_sliding_window_kv_pool:
                        return loc
                    return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

                def _out_cache_loc(self, layer, forward_batch):
                    if self.use_sliding_window_kv_pool and layer.is_swa:
                        return self._maybe_translate(forward_batch.out_cache_loc)
                    assert self.use_sliding_window_kv_pool or not layer.is_swa
                    return forward_batch.out_cache_loc
            """
        ),
        expected=((7, "KVP003"), (12, "KVP003"), (14, "KVP003")),
        fixed=dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    super().__init__(model_runner)
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                def _maybe_translate(self, loc):
                    if self._swa_kv_pool is None:
                        return loc
                    return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

                def _out_cache_loc(self, layer, forward_batch):
                    if self._swa_kv_pool is not None and layer.is_swa:
                        return self._maybe_translate(forward_batch.out_cache_loc)
                    assert self._swa_kv_pool is not None or not layer.is_swa
                    return forward_batch.out_cache_loc
            """
        ),
    ),
    Invalid(
        dedent(
            """\
            class DraftBackend(TRTLLMHAAttnBackend):
                # the pool attribute lives in a base class in another file: no safe rewrite
                def page_table(self, metadata):
                    return metadata.swa_page_table if self.has_swa else metadata.page_table
            """
        ),
        expected=((4, "KVP003"),),
        options=Options(swa_flags=("has_swa",)),
    ),
    Invalid(
        dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self.pool_ref = self._resolve_swa_kv_pool(model_runner)
                    self.layout = "swa" if (self.has_swa) else "full"

                def step(self):
                    while(self.has_swa):
                        pass
            """
        ),
        expected=((4, "KVP003"), (7, "KVP003")),
        fixed=dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self.pool_ref = self._resolve_swa_kv_pool(model_runner)
                    self.layout = "swa" if (self.pool_ref is not None) else "full"

                def step(self):
                    while(self.pool_ref is not None):
                        pass
            """
        ),
        options=Options(swa_flags=("has_swa",), pool_attr="pool_ref"),
    ),
)
