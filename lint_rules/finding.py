"""``Finding``, one diagnostic, in a module of its own: a run the cache answers reports its
findings without importing the engine and the rules (``lint_rules.engine`` re-exports it)."""
from __future__ import annotations

from dataclasses import dataclass

from lint_rules.fixes import UNSAFE


@dataclass(frozen=True)
class Finding:
    """One diagnostic: 1-based line, 0-based column, code and message (without the code);
    ``fixable``: a safe fix applies; ``fixes``: ``(title, applicability)`` of every fix offered."""

    line: int
    col: int
    code: str
    message: str
    fixable: bool
    fixes: tuple = ()

    @property
    def unsafe_only(self) -> bool:
        """Only an unsafe fix is offered: fixed with ``--unsafe-fixes``, hidden without."""
        return not self.fixable and any(a == UNSAFE for _, a in self.fixes)
