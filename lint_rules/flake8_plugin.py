"""flake8 adapter: runs the engine on each file and leaves noqa, select/ignore and config to flake8.

Registered as ``KVP = lint_rules.flake8_plugin:PoolGuardChecker`` (group ``flake8.extension``).
Options are read once per run (``parse_options``), not once per file. KVP004 is opt-in through
``extend_default_ignore``; flake8 drops that list as soon as ``ignore`` is given (``ignore =
E501`` in a config), so, as bugbear does for B9xx, an opt-in code is computed only when a
``select``/``extend-select`` entry names it. flake8 filters the rest (noqa, ignores).
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Sequence, Tuple

from flake8.exceptions import ExecutionError

from lint_rules.config import ConfigError, refuse_lowercase
from lint_rules.engine import ALL_CODES, DEFAULT_CODES, lint_source
from lint_rules.files import read_regular_file
from lint_rules.options import OPTION_SPECS, OptionError, Options
from lint_rules.rules.kvp900_parse_error import ParseFailure

try:
    from importlib.metadata import version as _dist_version

    _VERSION = _dist_version("sglang-poolguard")
except Exception:  # running from a source tree without the distribution installed
    _VERSION = "0"


class PoolGuardChecker:
    """flake8 checker: yields ``(line, col0, "KVP00x message", type)`` per finding."""

    name = "sglang-poolguard"
    version = _VERSION
    options: Options = Options()
    codes: frozenset = frozenset(ALL_CODES)  # computed codes: the default ones and selected opt-ins
    stdin_name: Optional[str] = None  # the name flake8 gives standard input, when it reads it

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager) -> None:
        for spec in OPTION_SPECS:
            kind = {"comma_separated_list": True, "default": ""} if spec.listed else {
                "default": getattr(Options, spec.field)}
            manager.add_option(f"--{spec.name}", parse_from_config=True, help=spec.help, **kind)
        manager.extend_default_ignore(["KVP004"])

    @classmethod
    def parse_options(cls, options) -> None:
        """The CLI's validation (``Options.from_values``); a bad value stops flake8 with one
        clear line, as flake8 reports its own critical errors."""
        try:
            cls.options = Options.from_settings(
                {spec.name: getattr(options, spec.dest, None) for spec in OPTION_SPECS})
            for name in ("select", "extend_select", "ignore", "extend_ignore"):
                refuse_lowercase(getattr(options, name, None) or (), name.replace("_", "-"))
        except (OptionError, ConfigError) as exc:
            raise ExecutionError(f"{cls.name}: {exc}") from None
        # flake8 names standard input ('-') by --stdin-display-name (default 'stdin')
        linted = getattr(options, "filenames", None) or ()
        cls.stdin_name = ((getattr(options, "stdin_display_name", None) or "stdin")
                          if "-" in linted else None)
        chosen = tuple(getattr(options, "select", None) or ()) + tuple(
            getattr(options, "extend_select", None) or ())
        cls.codes = frozenset(code for code in ALL_CODES
                              if code in DEFAULT_CODES or code.startswith(chosen))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        source = "".join(self.lines)
        undecodable = self._undecodable(source)
        if undecodable is not None:  # as ``poolguard lint`` reports the file: one KVP900
            yield 1, 0, f"{undecodable.code} {undecodable.message}", type(self)
            return
        # flake8's own ast lets the engine skip its syntax check and gate for free
        try:
            found = lint_source(source, codes=self.codes, options=self.options, tree=self.tree)
        except (RecursionError, MemoryError) as exc:
            # flake8 aborts the whole run on a plugin exception: this file gets KVP900 instead
            reason = "nesting too deep" if isinstance(exc, RecursionError) else "out of memory"
            yield 1, 0, f"{ParseFailure.CODE} {ParseFailure.message_for(reason)}", type(self)
            return
        for finding in found:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)

    def _undecodable(self, source: str):
        """The CLI's KVP900 for a file its declared codec (UTF-8 without a cookie) cannot
        decode, which Python refuses to run: flake8 reads it as latin-1 instead (its
        ``FileProcessor`` falls back), so the plugin would lint text no Python sees. Only a
        text that is not ASCII or names a codec can be such a fallback; its file is read
        again and the fallback confirmed (the same text). Standard input never is: flake8
        decodes it strictly (no fallback), and it bears the display name of a file on disk
        that may hold other bytes (an editor's buffer of a file it is converting)."""
        if self.filename == self.stdin_name or (
                source.isascii() and "coding" not in "".join(self.lines[:2])):
            return None
        from lint_rules.runner import MAX_SOURCE_BYTES, _decode, _undecodable

        try:
            data = read_regular_file(self.filename, MAX_SOURCE_BYTES)
            _decode(data)
        except OSError:
            return None
        except (SyntaxError, UnicodeError, LookupError) as exc:
            text = data.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
            for bom in ("\ufeff", "\xef\xbb\xbf"):  # flake8 strips either spelling
                text = text[len(bom):] if text.startswith(bom) else text
            return _undecodable(exc) if text == source else None
        return None
