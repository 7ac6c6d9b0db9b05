"""KVP900: a file libcst cannot parse (reported by the engine, never a traceback)."""
from __future__ import annotations

from lint_rules.rules._base import Invalid, Rule


class ParseFailure(Rule):
    """The file cannot be parsed by libcst, so no KVP rule could check it.

    Reported once per file at the position of the syntax error, with libcst's reason, so a
    broken file is visible instead of silently passing. Only files that pass the cheap text
    pre-filter and declare a backend class (``class X(...Backend)``) are parsed, so a file that
    cannot contain a KVP finding is never reported: its syntax is flake8's E999. Under
    flake8 a file that Python itself cannot parse is reported as E999 and plugins do not run.
    """

    CODE = "KVP900"
    NAME = "parse-error"
    MESSAGE = "cannot parse: {reason}"
    INVALID = (
        Invalid(
            "class SWABackend(AttnBackend):\n"
            "    def __init__(self, model_runner:\n"
            "        self.pool = model_runner.token_to_kv_pool\n",
            expected=((3, "KVP900"),),
        ),
    )
