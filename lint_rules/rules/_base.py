"""The rule interface: documentation and examples first, then a check over the shared facts."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import ClassVar, Iterator, Optional, Sequence, Tuple

from lint_rules.options import Options
from lint_rules.rules._facts import FileFacts


@dataclass(frozen=True)
class Valid:
    """Source that must produce no finding (with all default codes plus the rule's own)."""

    source: str
    options: Options = Options()


@dataclass(frozen=True)
class Invalid:
    """Source with its expected ``(line, code)`` findings and, when fixable, the fixed source."""

    source: str
    expected: Tuple[Tuple[int, str], ...]
    fixed: Optional[str] = None
    options: Options = Options()


@dataclass(frozen=True)
class Report:
    """A finding before columns are converted: the ``ast`` node, the fixes it offers and the
    backend class it lies in (the unsafe class-level fix is offered per class)."""

    node: Optional[ast.AST]
    code: str
    message: str
    fixes: tuple = ()  # lint_rules.fixes.Fix; empty when no safe fix can be proven
    position: Optional[Tuple[int, int]] = None  # (line, character column) when there is no node
    scope: Optional[ast.ClassDef] = None


class Rule:
    """Base of every rule: class attributes (examples first, Fixit style) and ``check``.

    The docstring is the documentation: a summary line, then ``What it does`` and ``Why is this
    bad?`` sections; ``Example`` and ``Use instead`` are rendered from ``INVALID`` / ``VALID``.
    """

    VALID: ClassVar[Tuple[Valid, ...]] = ()
    INVALID: ClassVar[Tuple[Invalid, ...]] = ()
    CODE: ClassVar[str]
    NAME: ClassVar[str]  # short kebab-case title
    MESSAGE: ClassVar[str]  # str.format template, about 120 characters once filled
    DEFAULT: ClassVar[bool] = True

    def __init__(self, facts: FileFacts, lines: Sequence[str]) -> None:
        self.facts, self.lines = facts, lines
        self.options = facts.options if facts is not None else Options()

    def check(self) -> Iterator[Report]:
        """The rule's findings over the file's facts."""
        return iter(())

    def parse_error(self, line: int, col: int, reason: str,
                    remedy: Optional[str] = None) -> Optional[Report]:
        """A finding for a file that cannot be parsed; only a rule about parsing gives one."""
        return None

    def report(self, node: ast.AST, fix=None, scope: Optional[ast.ClassDef] = None,
               template: Optional[str] = None, **fields: str) -> Report:
        """A finding at ``node`` in class ``scope``, offering ``fix`` (a ``Fix`` or None);
        ``template`` replaces ``MESSAGE`` for a variant of the rule (say what to do there)."""
        fields.setdefault("pool_attr", self.options.pool_attr)
        fields.setdefault("test_pool", self._test_pool(scope))
        built = self.facts.built_at(scope, node) if self.facts is not None else None
        if built is not None:
            fix, scope = None, None  # a builder's line: no class of it to rewrite here
        fixes = () if fix is None else (fix,)
        message = (template or self.MESSAGE).format(**fields)
        if built is not None and message.startswith("self."):  # (its name for the backend)
            message = built + message[len("self"):]
        return Report(node, self.CODE, message, fixes, scope=scope)

    def _test_pool(self, scope: Optional[ast.ClassDef]) -> str:
        """The remedy's pool test: the class's resolved pool, or resolve it first where the class
        (with its bases, here or in another module) has none: naming a missing attribute is no
        remedy."""
        attr = self.options.pool_attr
        cls = next((c for c in self.facts.classes if c.node is scope), None) if (
            scope is not None and self.facts is not None) else None
        if cls is None or (self.facts.provides_pool(cls) or any(
                attr in s.stores for c in cls.family for s in c.foreign)) and not (
                self.facts.kept_pool_attr(cls)):  # (one kept unresolved: resolve it)
            return f"test self.{attr} is not None"
        return f"resolve self.{attr} (#27491), test it"  # #27491: through the allocator

    def kept_conditions_remedy(self, scope: Optional[ast.ClassDef]) -> str:
        """The remedy for a flag joining its pool test with another condition (``isinstance(p,
        SWAKVPool) and self.window > 0``): the pool test stands for the type test only."""
        return f"{self._test_pool(scope)} in place of its type test"

    @classmethod
    def fixable(cls) -> bool:
        """Fixable exactly when an INVALID example carries an expected fix (as Fixit derives it)."""
        return any(example.fixed is not None for example in cls.INVALID)

    @classmethod
    def summary(cls) -> str:
        """First line of the rule's docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0]
