"""KVP002: a boolean SWA flag computed from a pool or allocator type."""
from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent
from typing import List, Optional

import libcst as cst

from lint_rules.rules._base import Invalid, Rule, Valid
from lint_rules.rules._facts import ClassInfo, is_swa_flag_expr, self_attr
from lint_rules.rules.kvp003_swa_flag_gate import drop_flag_edits, flag_defs


@dataclass
class FlagDef:
    """``self.<name> = <SWA type test>`` as seen during the pass."""

    name: str
    target: cst.Attribute
    statement: cst.BaseSmallStatement
    value: cst.BaseExpression
    cls: ClassInfo
    method: Optional[str]
    function: Optional[cst.FunctionDef]
    tick: int


class SwaTypeFlag(Rule):
    """A boolean SWA flag computed from a pool or allocator type: a second source of truth.

    ``self.use_sliding_window_kv_pool = isinstance(pool, SWAKVPool)`` answers "is this an SWA
    backend?" once, from whatever pool or allocator was active at that moment, while the code
    that translates indices uses ``self._swa_kv_pool``. Under FROZEN_KV MTP / EAGLE drafts the
    pool is swapped per forward, the two drift apart, and SWA layers are handed full-pool
    indices (illegal memory access). Flagged in attention backends: ``self.<attr> = <expr>``
    whose ``and``/``or``/``not`` structure holds ``isinstance(x, <name containing SWA>)`` (or
    a tuple of names with one) or ``type(x) is/== <SWA name>``, for any ``x``. The fix drops the
    assignment (``pass`` if it was alone in its block) and lets KVP003 gate on
    ``self._swa_kv_pool``; it is offered only when the class has that attribute, the flag is
    assigned once, and every read of it in the file is a condition KVP003 can rewrite.
    """

    CODE = "KVP002"
    NAME = "swa-type-flag"
    FIXABLE = True
    MESSAGE = (
        "self.{attr} is an SWA flag computed from a pool/allocator type, a second source of "
        "truth beside self.{pool_attr}; once token_to_kv_pool is swapped per forward "
        "(FROZEN_KV MTP / EAGLE drafts) they disagree and SWA layers get full-pool indices "
        "(illegal memory access) — drop the flag and test self.{pool_attr} is not None"
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.class_stack: List[ClassInfo] = []
        self.func_stack: List[cst.FunctionDef] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_stack.append(self.ctx.classes[-1])  # the collector ran first on this node

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.class_stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.func_stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.func_stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1:
            self._candidate(node, node.targets[0].target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._candidate(node, node.target, node.value)

    def _candidate(self, statement, target, value) -> None:
        name = self_attr(target)
        if name is None or not self.class_stack or not self.func_stack:
            return
        cls = self.class_stack[-1]
        if not cls.is_backend or not is_swa_flag_expr(value):
            return
        method = self._method_name(cls)
        tick = self.ctx.tick  # before the value's children: reads inside it count as earlier
        flag = FlagDef(name, target, statement, value, cls, method, self.func_stack[-1], tick)
        flag_defs(self.ctx).setdefault(name, []).append(flag)

    def _method_name(self, cls: ClassInfo) -> Optional[str]:
        for name, method in cls.methods.items():
            if any(method is func for func in self.func_stack):
                return name
        return None

    def finish(self) -> None:
        for name, defs in flag_defs(self.ctx).items():
            for flag in defs:
                edits = drop_flag_edits(self.ctx, name, flag.statement, flag.cls)
                self.report(flag.target, edits, attr=name)


SwaTypeFlag.VALID = (
    Valid(
        dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                    # a non-SWA type test on the allocator, and a local SWA test, are fine
                    self.paged = isinstance(model_runner.token_to_kv_pool_allocator, Paged)

                def forward(self, forward_batch):
                    is_swa = isinstance(forward_batch.token_to_kv_pool, SWAKVPool)
                    return is_swa
            """
        )
    ),
)

SwaTypeFlag.INVALID = (
    Invalid(
        dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                    if model_runner.is_draft_worker:
                        self.use_swa = isinstance(
                            model_runner.token_to_kv_pool_allocator, SWATokenToKVPoolAllocator
                        )

                def table(self, meta):
                    return meta.swa_page_table if self.use_swa else meta.page_table
            """
        ),
        expected=((5, "KVP002"), (10, "KVP003")),
        fixed=dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                    if model_runner.is_draft_worker:
                        pass

                def table(self, meta):
                    return meta.swa_page_table if self._swa_kv_pool is not None else meta.page_table
            """
        ),
    ),
    Invalid(
        dedent(
            """\
            class DemoBackend(FlashAttentionBackend):
                def __init__(self, model_runner):
                    self.use_sliding_window_kv_pool = (
                        type(model_runner.token_to_kv_pool) is SWAKVPool
                        and model_runner.token_to_kv_pool.swa_layer_nums > 0
                    )
                    # passed on as a value: KVP003 cannot rewrite this read, so no fix
                    self.updater = Updater(self.use_sliding_window_kv_pool)
            """
        ),
        expected=((3, "KVP002"),),
    ),
)
