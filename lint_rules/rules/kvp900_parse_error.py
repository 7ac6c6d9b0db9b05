"""KVP900: a file that passes the pre-filter but cannot be parsed (never a traceback)."""
from __future__ import annotations

from typing import Optional

from lint_rules.rules._base import Invalid, Report, Rule


class ParseFailure(Rule):
    """The file cannot be parsed, so no KVP rule could check it.

    What it does:
        Reports a file once, at the syntax error, with the parser's reason, when the file passes
        the text pre-filter (it mentions a backend base name and the pool vocabulary) but the
        running Python's parser rejects it (syntax newer than that Python, such as ``type X =
        int`` under 3.11, included), when it nests deeper than Python's parser allows, or
        (``poolguard lint``) when its bytes are not valid in the file's declared encoding.
        Under flake8 a file Python cannot parse is flake8's own E999 and plugins do not run on
        it.

    Why is this bad?
        A broken file would otherwise pass silently: none of the other rules could look at it.
        Fix the syntax error; the other rules then check the file again.

    Fix safety:
        No fix: only a person can say what the broken code meant.
    """

    INVALID = (
        Invalid(
            "class SWABackend(AttnBackend):\n"
            "    def __init__(self, model_runner:\n"
            "        self.pool = model_runner.token_to_kv_pool\n",
            expected=((2, "KVP900"),),
        ),
    )
    CODE = "KVP900"
    NAME = "parse-error"
    MESSAGE = "cannot parse: {reason}; {remedy}"
    REMEDY = "fix that so the KVP rules can check this file"

    @classmethod
    def message_for(cls, reason: str, remedy: Optional[str] = None) -> str:
        """The one KVP900 message (engine, CLI runner and flake8 adapter all use it)."""
        return cls.MESSAGE.format(reason=" ".join(reason.split()), remedy=remedy or cls.REMEDY)

    def parse_error(self, line: int, col: int, reason: str, remedy: Optional[str] = None
                    ) -> Optional[Report]:
        message = self.message_for(reason, remedy)
        return Report(None, self.CODE, message, (), (max(line, 1), max(col, 0)))
