"""``Finding``, one diagnostic, in a module of its own: a run the cache answers reports its
findings without importing the engine and the rules (``lint_rules.engine`` re-exports it)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from lint_rules.fixes import UNSAFE
from lint_rules.output import LINE_BREAKERS

# What may not stand raw in a message, or in any line the CLI writes: C0 and C1 controls (a
# newline, ESC, CSI), the line and paragraph separators, which ``str.splitlines`` breaks at,
# and lone surrogates (``setattr(self, "pool\ud800", ...)``), which no UTF-8 stream can take.
UNSHOWN = re.compile(f"[\x00-\x1f\x7f{LINE_BREAKERS}\ud800-\udfff]")


def on_one_line(text: str) -> str:
    """``text`` with each such character as Python's escape of it (``\\n``, ``\\x1b``,
    ``\\u2028``): a message quotes names from the source, and ``setattr(self, "a\\nb", ...)``
    names an attribute ``a`` newline ``b``; raw, it split the finding's line in two (the second
    part read as a finding of its own) and a terminal obeyed an escape sequence in it."""
    return UNSHOWN.sub(lambda match: repr(match[0])[1:-1], text)


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
