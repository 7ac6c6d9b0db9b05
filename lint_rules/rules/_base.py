"""The rule interface: a batchable libcst visitor plus its documentation and examples."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Dict, Optional, Tuple

import libcst as cst

from lint_rules.options import Options
from lint_rules.rules._facts import FileContext

REMOVE = cst.RemovalSentinel.REMOVE  # replacement value meaning "drop this statement"


@dataclass(frozen=True)
class Valid:
    """Source that must produce no finding (with all default codes plus the rule's own)."""

    code: str
    options: Options = Options()


@dataclass(frozen=True)
class Invalid:
    """Source with its expected ``(line, code)`` findings and, when fixable, the fixed source."""

    code: str
    expected: Tuple[Tuple[int, str], ...]
    fixed: Optional[str] = None
    options: Options = Options()


@dataclass
class Report:
    """A finding before positions are known: the node to point at and the edits that fix it."""

    node: cst.CSTNode
    code: str
    message: str
    # id(original node) -> (original node, new node or REMOVE); empty when not fixable
    edits: Dict[int, tuple] = field(default_factory=dict)


class Rule(cst.BatchableCSTVisitor):
    """Base of every rule. Subclasses set the class attributes and visit / ``finish``."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]  # short kebab-case title
    MESSAGE: ClassVar[str]  # str.format template; fields: attr, pool_attr, reason
    DEFAULT: ClassVar[bool] = True
    FIXABLE: ClassVar[bool] = False
    VALID: ClassVar[Tuple[Valid, ...]] = ()
    INVALID: ClassVar[Tuple[Invalid, ...]] = ()

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx

    def finish(self) -> None:
        """Called once after the pass, in registry order; decide and report here."""

    def report(self, node: cst.CSTNode, edits: Optional[dict] = None, **fields: str) -> Report:
        fields.setdefault("pool_attr", self.ctx.options.pool_attr)
        entry = Report(node, self.CODE, self.MESSAGE.format(**fields), dict(edits or {}))
        self.ctx.reports.append(entry)
        return entry

    @classmethod
    def summary(cls) -> str:
        """First line of the rule's docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0]
