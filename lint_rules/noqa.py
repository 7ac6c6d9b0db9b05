"""flake8's ``# noqa`` semantics, taken from flake8 itself, for every poolguard path.

flake8 reads an inline suppression with its own regex (``flake8.defaults.NOQA_INLINE_REGEXP``)
searched over a line's *noqa range*: the text of every physical line its tokens span (a
multi-line string or a backslash-continued statement is one range), found by Python's
tokenizer over the file as flake8 reads it (universal newlines: ``\\r``, ``\\n`` and
``\\r\\n`` end lines; form feeds, U+2028 or U+0085 do not). The first match decides; listed
codes are compared exactly or as prefixes, case-sensitively. A file with a
``# flake8: noqa`` line is skipped whole. Lint, ``--diff``, ``--fix``, ``--add-noqa`` and the
flake8 plugin all ask ``NoqaMap``, so they agree on what is suppressed.
"""
from __future__ import annotations

import io
import tokenize
from typing import Dict, List, Optional, Tuple

from flake8.defaults import NOQA_FILE, NOQA_INLINE_REGEXP
from flake8.utils import parse_comma_separated_list

__all__ = ["NoqaMap", "NOQA_INLINE_REGEXP", "listed_codes"]


def listed_codes(match) -> Optional[tuple]:
    """``()`` for a bare ``# noqa`` match, else the codes it lists (flake8's own split)."""
    codes = match.group("codes")
    return tuple(parse_comma_separated_list(codes)) if codes else ()


def _covers(codes: tuple, code: str) -> bool:
    return not codes or code in codes or code.startswith(codes)


class NoqaMap:
    """Suppressions of one file, given its physical lines without their endings."""

    def __init__(self, lines: List[str]) -> None:
        self.lines = lines
        self.mentions_noqa = any("noqa" in line.lower() for line in lines)
        # a line flake8 reads a ``# noqa`` on (the regex spans no line end, so a range's text
        # matches only where one of its lines does): without one, nothing needs tokenizing
        self.marked = self.mentions_noqa and any(map(NOQA_INLINE_REGEXP.search, lines))
        self._ranges: Optional[Dict[int, Tuple[int, int]]] = None
        self._comments: Dict[int, tokenize.TokenInfo] = {}

    # -- flake8's view ----------------------------------------------------------------------
    @property
    def skips_file(self) -> bool:
        """A ``# flake8: noqa`` line: flake8 reports nothing for the whole file."""
        return self.mentions_noqa and any(NOQA_FILE.match(line) for line in self.lines)

    def covers(self, number: int, code: str) -> bool:
        """flake8 would drop a finding of ``code`` on line ``number``."""
        if not self.marked:
            return False
        match = NOQA_INLINE_REGEXP.search(self.text_for(number))
        return match is not None and _covers(listed_codes(match), code)

    def text_for(self, number: int) -> str:
        """The text flake8 searches for a ``noqa`` of line ``number``."""
        first, last = self.range_of(number)
        return "\n".join(self.lines[first - 1:last]) if first else ""

    def range_of(self, number: int) -> Tuple[int, int]:
        """``(first, last)`` line of ``number``'s noqa range; the line alone when the file
        cannot be tokenized (flake8 then reads the single physical line too)."""
        if not 0 < number <= len(self.lines):
            return 0, 0
        return self.ranges().get(number, (number, number))

    def ranges(self) -> Dict[int, Tuple[int, int]]:
        if self._ranges is None:
            self._ranges = self._tokenize()
        return self._ranges

    def comment_on(self, number: int) -> Optional[tokenize.TokenInfo]:
        """The comment token that ends line ``number``, if any (after ``ranges()``)."""
        self.ranges()
        return self._comments.get(number)

    def _tokenize(self) -> Dict[int, Tuple[int, int]]:
        mapping: Dict[int, Tuple[int, int]] = {}
        first, last = None, 0
        text = io.StringIO("\n".join(self.lines))
        try:
            for token in tokenize.generate_tokens(text.readline):
                if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                    continue
                if token.type == tokenize.COMMENT:
                    self._comments[token.start[0]] = token
                first = token.start[0] if first is None else min(first, token.start[0])
                last = max(last, token.end[0])
                if token.type in (tokenize.NL, tokenize.NEWLINE):
                    mapping.update(dict.fromkeys(range(first, last + 1), (first, last)))
                    first, last = None, 0
        except (tokenize.TokenError, SyntaxError):
            self._comments = {}
            return {}
        return mapping

    @property
    def tokenizes(self) -> bool:
        return bool(self.ranges()) or not any(line.strip() for line in self.lines)
