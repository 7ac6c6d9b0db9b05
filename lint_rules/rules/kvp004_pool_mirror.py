"""KVP004 (opt-in): a boolean mirror of the resolved SWA pool object."""
from __future__ import annotations

from textwrap import dedent
from typing import List, Optional, Tuple

import libcst as cst

from lint_rules.rules._base import Invalid, Rule, Valid
from lint_rules.rules._facts import ClassInfo, self_attr
from lint_rules.rules.kvp003_swa_flag_gate import drop_flag_edits


def mirror_polarity(value: cst.BaseExpression, pool_attr: str) -> Optional[bool]:
    """True for ``self.<pool> is not None`` / ``bool(self.<pool>)``, False for ``is None``."""
    if isinstance(value, cst.Comparison) and len(value.comparisons) == 1:
        target = value.comparisons[0]
        is_none = isinstance(target.comparator, cst.Name) and target.comparator.value == "None"
        if self_attr(value.left) == pool_attr and is_none:
            if isinstance(target.operator, cst.IsNot):
                return True
            if isinstance(target.operator, cst.Is):
                return False
        return None
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "bool"
        and len(value.args) == 1
        and self_attr(value.args[0].value) == pool_attr
    ):
        return True
    return None


class PoolMirror(Rule):
    """A boolean mirror of the pool object (``self.flag = self._swa_kv_pool is not None``).

    Redundant state: a subclass or a draft path that re-resolves ``self._swa_kv_pool`` (as the
    FROZEN_KV MTP fix does) silently leaves the mirror describing the old pool, and code gated
    on it sends full-pool indices to SWA layers (illegal memory access). Off by default, like
    flake8-bugbear's opinionated B9xx checks: upstream SGLang 0.5.18+ keeps exactly such a
    mirror. Enable with ``--extend-select KVP004`` (an explicit ``--select KVP`` includes it
    too under flake8). The fix drops the
    mirror and rewrites every read to test the pool attribute; it is offered only when every
    read of the mirror in the file is a condition that can be rewritten.
    """

    CODE = "KVP004"
    NAME = "pool-mirror"
    DEFAULT = False
    FIXABLE = True
    MESSAGE = (
        "self.{attr} mirrors self.{pool_attr}; a subclass or draft path that re-resolves the "
        "pool (FROZEN_KV MTP / EAGLE drafts swap it per forward) leaves the mirror stale and "
        "SWA layers get full-pool indices (illegal memory access) — drop it and test "
        "self.{pool_attr} is not None"
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.class_stack: List[ClassInfo] = []
        self.mirrors: List[Tuple[str, cst.Attribute, cst.CSTNode, ClassInfo, bool]] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_stack.append(self.ctx.classes[-1])

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.class_stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not self.class_stack or not self.class_stack[-1].is_backend:
            return
        target = node.targets[0].target
        name = self_attr(target)
        polarity = mirror_polarity(node.value, self.ctx.options.pool_attr)
        if name is not None and name != self.ctx.options.pool_attr and polarity is not None:
            self.mirrors.append((name, target, node, self.class_stack[-1], polarity))

    def finish(self) -> None:
        for name, target, statement, cls, polarity in self.mirrors:
            edits = drop_flag_edits(self.ctx, name, statement, cls, inverted=not polarity)
            self.report(target, edits, attr=name)


PoolMirror.VALID = (
    Valid(
        dedent(
            """\
            class DemoAttnBackend(AttentionBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                def _alloc(self, n):
                    return None if self._swa_kv_pool is None else torch.zeros(n)
            """
        )
    ),
)

PoolMirror.INVALID = (
    Invalid(
        dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                    self.has_swa = self._swa_kv_pool is not None

                def _alloc(self, n):
                    if not self.has_swa:
                        return None
                    return torch.zeros(n)
            """
        ),
        expected=((4, "KVP004"),),
        fixed=dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                def _alloc(self, n):
                    if self._swa_kv_pool is None:
                        return None
                    return torch.zeros(n)
            """
        ),
    ),
    Invalid(
        dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                    self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

                def _alloc(self, n):
                    return torch.zeros(n) if self.use_sliding_window_kv_pool else None
            """
        ),
        expected=((4, "KVP004"), (7, "KVP003")),
        fixed=dedent(
            """\
            class DemoAttnBackend(FlashInferAttnBackend):
                def __init__(self, model_runner):
                    self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                def _alloc(self, n):
                    return torch.zeros(n) if self._swa_kv_pool is not None else None
            """
        ),
    ),
)
