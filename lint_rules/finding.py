"""``Finding``, one diagnostic, in a module of its own: a run the cache answers reports its
findings without importing the engine and the rules (``lint_rules.engine`` re-exports it)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from lint_rules.fixes import UNSAFE

# What may not stand raw in a message: C0 and C1 controls (a newline, ESC, CSI) and the line
# and paragraph separators, which ``str.splitlines`` breaks at.
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def on_one_line(text: str) -> str:
    """``text`` with each such character as Python's escape of it (``\\n``, ``\\x1b``,
    ``\\u2028``): a message quotes names from the source, and ``setattr(self, "a\\nb", ...)``
    names an attribute ``a`` newline ``b``; raw, it split the finding's line in two (the second
    part read as a finding of its own) and a terminal obeyed an escape sequence in it."""
    return _UNSHOWN.sub(lambda match: repr(match[0])[1:-1], text)


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

    def __post_init__(self) -> None:
        """Every message and fix title is one line of visible text, whatever the source held."""
        object.__setattr__(self, "message", on_one_line(self.message))
        object.__setattr__(self, "fixes", tuple((on_one_line(title), applicability)
                                                for title, applicability in self.fixes))

    @property
    def unsafe_only(self) -> bool:
        """Only an unsafe fix is offered: fixed with ``--unsafe-fixes``, hidden without."""
        return not self.fixable and any(a == UNSAFE for _, a in self.fixes)
