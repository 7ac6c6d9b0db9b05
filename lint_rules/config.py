"""Configuration for the ``poolguard`` CLI, read the way flake8 reads it.

The first of ``setup.cfg``, ``tox.ini``, ``.flake8`` (walking up from the current directory,
stopping at the home directory) that has a ``[flake8]`` or ``[poolguard]`` section is used;
keys in ``[poolguard]`` override the same keys in ``[flake8]``. Only KVP codes matter here:
flake8 codes for other plugins in ``select``/``ignore`` are dropped. Everything is resolved
once per run into a ``RunConfig``; nothing here runs per file.
"""
from __future__ import annotations

import ast
import codecs
import configparser
import errno
import fnmatch
import functools
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from lint_rules.files import read_regular_file
from lint_rules.options import OPTION_SPECS, OptionError, Options, shown

CONFIG_FILES = ("setup.cfg", "tox.ini", ".flake8")
MAX_CONFIG_BYTES = 16 * 1024 * 1024  # no INI config is this large; reading one costs its size
SECTIONS = ("flake8", "poolguard")  # later sections override earlier ones
READ_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "per-file-ignores", "exclude",
             "extend-exclude", "disable-noqa", *(spec.name for spec in OPTION_SPECS))
CODE_PREFIX = "KVP"
QUOTED = re.compile(r"[\[\]{}\"']")  # a TOML or JSON list, which an INI file keeps as text

# Directories never worth walking into when no ``exclude`` is configured (VCS, tox/nox,
# virtualenvs, caches); a directory holding ``pyvenv.cfg`` is skipped as a venv whatever its name.
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", "CVS", ".tox", ".nox", ".venv", ".eggs", "*.egg",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
)


class ConfigError(Exception):
    """A bad configuration or command-line value; the CLI prints it and exits 2."""


@dataclass(frozen=True)
class FileConfig:
    """The raw poolguard-relevant keys of one config file (dashes normalised)."""

    path: Optional[Path] = None
    values: dict = field(default_factory=dict)

    @property
    def root(self) -> Path:
        """Directory that relative patterns in the file are resolved against."""
        return self.path.parent if self.path else Path.cwd()


@dataclass(frozen=True)
class CodeChoice:
    """The lists ``codes`` were chosen from, kept so a ``per-file-ignores`` entry is decided
    as flake8 decides it: its codes join ``ignore`` and the longest prefix still wins."""

    known: tuple
    default: frozenset
    select: Optional[tuple]
    extend_select: tuple
    ignore: Optional[tuple]
    extend_ignore: tuple = ()

    def codes(self, also_ignored: tuple = ()) -> frozenset:
        return select_codes(self.known, self.default, select=self.select,
                            extend_select=self.extend_select, ignore=self.ignore,
                            extend_ignore=self.extend_ignore + also_ignored)


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs, resolved once: codes, rule options, ignores and excludes."""

    codes: frozenset
    options: Options
    per_file_ignores: tuple = ()  # ((absolute or basename pattern, (codes...)), ...)
    exclude: tuple = DEFAULT_EXCLUDE
    root: Path = field(default_factory=Path.cwd)
    config_path: Optional[Path] = None
    choice: Optional[CodeChoice] = None  # how ``codes`` were chosen (None: ignore by prefix)
    disable_noqa: bool = False  # flake8's disable-noqa: every ``# noqa`` is ignored

    def codes_for(self, path: str) -> frozenset:
        """Codes enabled for ``path`` after ``per-file-ignores``. Most files match no pattern:
        one compiled test of all of them says so before any is tried alone. As in flake8, one
        entry applies: the longest pattern that matches, the first of equally long ones (a
        file under ``legacy/sub/`` takes ``legacy/sub/*``'s codes, not ``legacy/*``'s too)."""
        if not self.per_file_ignores or not any_matches(
                _patterns_of(self.per_file_ignores), path):
            return self.codes
        _, ignored = max((entry for entry in self.per_file_ignores
                          if path_matches(path, entry[0])), key=lambda entry: len(entry[0]))
        if self.choice is not None:  # `select = KVP001` keeps KVP001 from a `KVP0` entry
            return self.choice.codes(ignored)
        return frozenset(c for c in self.codes if not c.startswith(ignored))

    def is_excluded(self, path: str) -> bool:
        """True when ``path`` (a file or directory) matches an exclude pattern."""
        return any_matches(self.exclude, path)


@functools.lru_cache(maxsize=8)
def _patterns_of(per_file_ignores: tuple) -> tuple:
    return tuple(pattern for pattern, _ in per_file_ignores)


def any_matches(patterns: tuple, path: str) -> bool:
    """``any(path_matches(path, p) for p in patterns)``, by two compiled regexes."""
    by_name, by_path = _matchers(patterns)
    if by_name and by_name(os.path.normcase(os.path.basename(path))):
        return True
    return bool(by_path) and bool(by_path(os.path.normcase(os.path.abspath(path))))


@functools.lru_cache(maxsize=8)
def _matchers(patterns: tuple) -> tuple:
    """One compiled regex for basename patterns and one for path patterns (per run, not file)."""
    def compiled(group):
        group = [os.path.normcase(p) for p in group]
        return re.compile("|".join(fnmatch.translate(p) for p in group)).match if group else None

    with_sep = [p for p in patterns if os.sep in p]
    return compiled(patterns), compiled(with_sep)


def path_matches(path: str, pattern: str) -> bool:
    """flake8's rule: a pattern matches the basename, or the absolute path when it has a slash."""
    if fnmatch.fnmatch(os.path.basename(path), pattern):
        return True
    return os.sep in pattern and fnmatch.fnmatch(os.path.abspath(path), pattern)


def find_config_file(start: Path) -> Optional[Path]:
    """The config file flake8 would pick from ``start`` (or None)."""
    for directory in _searched(start):
        for name in CONFIG_FILES:
            candidate = directory / name
            if candidate.is_file() and _has_section(candidate):
                return candidate
    return None


def _searched(start: Path):
    """The folders the search looks in, as flake8 walks them: ``start`` first, then its
    parents up to the root, stopping before the home folder (a ``~/.flake8`` is no project's
    config; flake8 stopped reading it in 4.0) unless the search starts there."""
    try:
        home = Path.home().resolve()
    except RuntimeError:  # no $HOME, no passwd entry (a container's uid): up to the root
        home = None
    directory = start.resolve()
    while True:
        yield directory
        if directory.parent == directory or directory.parent == home:
            return
        directory = directory.parent


_TOML_TABLE = re.compile(rb"(?m)^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*(flake8|poolguard)[ \t]*\]")


def unread_pyproject(start: Path, found: Optional[Path]) -> Optional[str]:
    """Why a ``pyproject.toml`` the search passed on its way to ``found`` (or to its end) is
    not read, when it holds a ``[tool.flake8]`` or ``[tool.poolguard]`` table: poolguard reads
    INI files only, as flake8 does (a plugin may teach flake8 ``[tool.flake8]``), and keys
    written there would otherwise be ignored without a word."""
    for directory in _searched(start):
        candidate = directory / "pyproject.toml"
        try:
            match = _TOML_TABLE.search(read_regular_file(candidate, MAX_CONFIG_BYTES))
        except OSError:
            match = None
        if match:
            return (f"{candidate} has [tool.{match[1].decode()}], which poolguard does not read "
                    f"(nor does flake8 by itself): put those keys in [poolguard] or [flake8] of "
                    f"setup.cfg, tox.ini or .flake8")
        if found is not None and directory == found.parent:
            return None
    return None


def _has_section(path: Path) -> bool:
    """The file has a section we read. One that does not parse counts when a line opens one
    of them: it is picked, and ``read_config_file`` stops the run on it as ``--config`` does
    (flake8 would drop the user's select silently); other broken files are not ours."""
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)
    except OSError as exc:  # too large to be anyone's config: stop on it, never read it
        return exc.errno == errno.EFBIG
    parser = configparser.RawConfigParser()
    try:
        _read_ini(parser, data, path)
    except (configparser.Error, UnicodeDecodeError):
        return _OUR_HEADER.search(data) is not None
    return any(parser.has_section(name) for name in (*SECTIONS, LOCAL_PLUGINS))


# flake8 takes a file with only this section as the project's config too (it stops looking)
LOCAL_PLUGINS = "flake8:local-plugins"


def _read_ini(parser: configparser.RawConfigParser, data: bytes, path: Path) -> None:
    """``data`` into ``parser`` with its lines ended as flake8's ``configparser.read`` ends
    them, by universal newlines: CR, LF or CRLF (``read_string`` splits at LF only, so a
    CR-only file was one line, its ``[flake8]`` header with every key dropped after it)."""
    parser.read_file(io.StringIO(data.decode("utf-8"), newline=None), source=str(path))


_OUR_HEADER = re.compile(rb"(?m)(?:^|\r)(?:\xef\xbb\xbf)?[ \t]*\[[ \t]*(?:" + b"|".join(
    re.escape(name.encode()) for name in SECTIONS) + rb")\b")


def read_config_file(path: Optional[Path]) -> FileConfig:
    """Merge ``[flake8]`` then ``[poolguard]`` of ``path`` into one dict of raw strings."""
    if path is None:
        return FileConfig()
    parser = configparser.RawConfigParser()
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)  # a FIFO or device is never opened
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if data.startswith(codecs.BOM_UTF8):  # Notepad's UTF-8: flake8 drops the file unread
        raise ConfigError(f"config file {path} starts with a UTF-8 byte order mark, which "
                          "flake8 cannot read (it ignores the whole file): save it without it")
    try:
        _read_ini(parser, data, path)
    except (configparser.Error, UnicodeDecodeError) as exc:
        first_line = re.sub(r"^While reading from .*? \[line +(\d+)\]", r"line \1",
                            str(exc).splitlines()[0])  # the path is named once, below
        if getattr(exc, "errors", None):  # ParsingError's first line names only the file
            number, line = exc.errors[0]  # configparser keeps the line as its repr
            first_line = f"line {number} is no 'key = value' pair: {_unrepr(line).strip()!r}"
        raise ConfigError(f"cannot parse config file {path}: {first_line}") from None
    if not any(parser.has_section(section) for section in SECTIONS):
        if parser.has_section(LOCAL_PLUGINS):  # the project's config, with nothing for us
            return FileConfig(path=path.resolve(), values={})
        raise ConfigError(f"config file {path} has no [flake8] or [poolguard] section (the "
                          "INI syntax of setup.cfg, tox.ini or .flake8; pyproject.toml is not "
                          "read)")  # (only --config gets here)
    values: dict = {}
    for section in SECTIONS:
        if parser.has_section(section):
            for key, value in parser.items(section):
                values[key.replace("_", "-")] = value
    if parser.has_section("poolguard"):  # our own section: a misspelt key is never ignored
        unknown = [key for key in parser.options("poolguard")
                   if key.replace("_", "-") not in READ_KEYS]
        if unknown:
            raise ConfigError(f"unknown key {', '.join(unknown)} in [poolguard] of {path}; "
                              f"known keys: {', '.join(READ_KEYS)}")
        _refuse_foreign_codes(parser, path)
    return FileConfig(path=path.resolve(), values=values)


def _refuse_foreign_codes(parser: configparser.RawConfigParser, path: Path) -> None:
    """In ``[poolguard]``, which no other tool reads, a code list (``per-file-ignores``' too)
    holds KVP codes only and a ``select`` names one: there 'select = E501' or an empty
    'select =' was dropped as another tool's (as in ``[flake8]``) and the default set ran
    without a word."""
    for key, value in parser.items("poolguard"):
        key = key.replace("_", "-")
        if key == "per-file-ignores":
            codes = _mapped_codes(value)
        elif key in ("select", "extend-select", "ignore", "extend-ignore"):
            codes = split_codes(value)
        else:
            continue
        foreign = [c for c in codes if not _names_ours(c.upper()) and not QUOTED.search(c)]
        if foreign:
            raise ConfigError(f"{foreign[0]} in {key} of [poolguard] in {path} is no KVP code: "
                              "that section is poolguard's alone (other tools' codes go in "
                              "[flake8])")
        if key == "select" and not codes:
            raise ConfigError(f"select in [poolguard] of {path} names no code; leave it out "
                              "for the default set, or name codes or prefixes (KVP = all)")


def _mapped_codes(value: str) -> tuple:
    """The codes of a ``per-file-ignores`` value; () when it is no mapping, which
    ``_parse_per_file_ignores`` refuses with its own reason."""
    from flake8.exceptions import ExecutionError
    from flake8.utils import parse_files_to_codes_mapping

    try:
        return tuple(code for _, codes in parse_files_to_codes_mapping(value) for code in codes)
    except ExecutionError:
        return ()


def _unrepr(text: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def split_codes(value: Optional[str]) -> tuple:
    """``"KVP001, E501\\n KVP4"`` -> ``("KVP001", "E501", "KVP4")`` (flake8 comma/space lists)."""
    if not value:
        return ()
    return tuple(item for item in re.split(r"[,\s]+", value) if item.strip())


def _names_ours(code: str) -> bool:
    return code.startswith(CODE_PREFIX) or CODE_PREFIX.startswith(code)


def refuse_lowercase(codes: Iterable[str], where: str) -> None:
    """A KVP code spelt in lower case (``kvp001``) is refused: flake8 compares codes as
    written, so there it selects or ignores nothing, and the CLI reading it otherwise would
    report what flake8 does not (one check for the CLI, its config files and the plugin)."""
    for code in codes:
        if code != code.upper() and _names_ours(code.upper()):
            shown_code = code if len(code) <= 60 else shown(code)
            raise ConfigError(f"{shown_code} in {where} is no code: codes are upper case, as "
                              f"flake8 compares them (there it would match nothing): write "
                              f"{code.upper() if len(code) <= 60 else 'it in upper case'}")


def check_codes(codes: Iterable[str], known: Iterable[str], where: str) -> tuple:
    """Reject any entry that is not a prefix of a known code."""
    known = tuple(known)
    codes = tuple(codes)
    refuse_lowercase(codes, where)
    bad = [code for code in codes if not any(k.startswith(code) for k in known)]
    if bad:
        listed = ", ".join(c if c.isprintable() and len(c) <= 60 else shown(c) for c in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ConfigError(f"unknown code {listed}{more} in {where}; known codes: "
                          f"{', '.join(known)}")
    return codes


def _kvp_only(codes: tuple, known: tuple, where: str) -> tuple:
    """Keep entries that can name a KVP code; a KVP-looking entry that names none is an error,
    and so is one that can be no plugin's code (``["KVP004"]``: TOML's list, which an INI file
    keeps as text; it selected nothing, silently)."""
    odd = [c for c in codes if QUOTED.search(c)]
    if odd:
        raise ConfigError(f"{odd[0]!r} in {where} is no code: list codes bare, comma-separated "
                          "(e.g. select = KVP001, KVP004)")
    refuse_lowercase(codes, where)
    return check_codes(tuple(c for c in codes if _names_ours(c)), known, where)


def select_codes(
    known: tuple,
    default: frozenset,
    *,
    select: Optional[tuple] = None,
    extend_select: tuple = (),
    ignore: Optional[tuple] = None,
    extend_ignore: tuple = (),
) -> frozenset:
    """flake8's decision (``DecisionEngine.make_decision``) for the codes the plugin emits (the
    default set, and an opt-in code a select names): an explicit choice beats an implicit one,
    and between two of a kind the longest prefix wins, a tie ignoring. ``None``: not given.
    Where flake8 compares lengths, its implicit lists count too: the opt-in codes are its
    default ``ignore`` (until ``ignore`` is given) and ``KVP`` its default ``select``, so
    ``extend-select = KVP004`` with ``extend-ignore = KVP0`` leaves KVP004 off."""
    opt_in = tuple(code for code in known if code not in default)
    named = (select or ()) + extend_select
    selected_all = ((CODE_PREFIX,) if select is None else select) + extend_select
    ignored_named = (ignore or ()) + extend_ignore
    ignored_all = (opt_in if ignore is None else ignore) + extend_ignore
    chosen = set()
    for code in known:
        if code not in default and not code.startswith(named):
            continue  # the plugin never computes it
        selected = _kind(code, named, selected_all)
        ignored = _kind(code, ignored_named, ignored_all)
        if selected != ignored:  # explicit beats implicit, a match beats none
            keep = selected > ignored
        else:  # both explicit, or both implicit: the longest prefix wins, a tie ignores
            keep = selected != 0 and _longest(code, selected_all) > _longest(code, ignored_all)
        if keep:
            chosen.add(code)
    return frozenset(chosen)


def _kind(code: str, named: tuple, implied: tuple) -> int:
    """2: a prefix names ``code`` explicitly, 1: only an implied list does, 0: none."""
    return 2 if code.startswith(named) else 1 if code.startswith(implied) else 0


def _longest(code: str, prefixes: tuple) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def _parse_per_file_ignores(value: str, root: Path, known: tuple) -> tuple:
    """flake8's ``per-file-ignores`` (``pattern:codes`` pairs), slash patterns made absolute."""
    if not value.strip():
        return ()
    from flake8.utils import parse_files_to_codes_mapping  # only paid for when configured
    from flake8.exceptions import ExecutionError

    try:
        pairs = parse_files_to_codes_mapping(value)
    except ExecutionError:
        raise ConfigError(f"per-file-ignores is not a 'pattern:codes' mapping: {value.strip()!r}")
    result = []
    for pattern, codes in pairs:  # an entry of other tools' codes only is kept: it may be
        # the longest pattern a file matches, and then flake8 applies no other entry to it
        mine = _kvp_only(tuple(c.upper() for c in codes), known, "per-file-ignores")
        result.append((_normalise_pattern(pattern, root), mine))
    return tuple(result)


def _normalise_pattern(pattern: str, root: Path) -> str:
    """Patterns with a slash are relative to the config file's directory (flake8 semantics)."""
    if "/" not in pattern and os.sep not in pattern:
        return pattern
    return os.path.abspath(os.path.join(root, pattern.rstrip("/\\")))


def _patterns(value: Optional[str], root: Path) -> tuple:
    if value is None:
        return ()
    items = (p.strip() for p in re.split(r"[,\n]", value))
    return tuple(_normalise_pattern(p, root) for p in items if p)


def build_run_config(
    file_config: FileConfig,
    *,
    known: tuple,
    default: frozenset,
    cli_select: Optional[str] = None,
    cli_extend_select: Optional[str] = None,
    cli_ignore: Optional[str] = None,
    cli_options: Optional[dict] = None,
) -> RunConfig:
    """Resolve codes, options, ignores and excludes once from the config file and the CLI."""
    values = file_config.values
    where = str(file_config.path) if file_config.path else "config"
    root = file_config.root

    if cli_select is not None:
        select = check_codes(split_codes(cli_select), known, "--select")
        if not select:  # `--select "$CODES"` with CODES unset: never a silent pass
            raise ConfigError("--select names no code; leave it out for the default set, or "
                              "name codes or prefixes (KVP = all)")
    else:
        select = _kvp_only(split_codes(values.get("select")), known, where) or None
    extend_select = _kvp_only(split_codes(values.get("extend-select")), known, where)
    extend_select += check_codes(split_codes(cli_extend_select), known, "--extend-select")
    if cli_ignore is not None:
        ignore = check_codes(split_codes(cli_ignore), known, "--ignore")
    elif "ignore" in values:  # given, even empty or of other tools' codes: flake8's defaults go
        ignore = _kvp_only(split_codes(values.get("ignore")), known, where)
    else:
        ignore = None
    extend_ignore = _kvp_only(split_codes(values.get("extend-ignore")), known, where)
    choice = CodeChoice(known, default, select, extend_select, ignore, extend_ignore)

    exclude = _patterns(values.get("exclude"), root) if "exclude" in values else DEFAULT_EXCLUDE
    exclude += _patterns(values.get("extend-exclude"), root)
    return RunConfig(
        codes=choice.codes(),
        options=_options(values, cli_options or {}),
        per_file_ignores=_parse_per_file_ignores(values.get("per-file-ignores", ""), root, known),
        exclude=exclude,
        root=root,
        config_path=file_config.path,
        choice=choice,
        disable_noqa=_boolean(values.get("disable-noqa"), "disable-noqa", where),
    )


def _boolean(value: Optional[str], key: str, where: str) -> bool:
    """A flag of the config file, spelt as flake8's ``getboolean`` takes it (flake8 stops on
    any other spelling with a traceback)."""
    if value is None:
        return False
    states = configparser.RawConfigParser.BOOLEAN_STATES
    if value.lower() not in states:
        raise ConfigError(f"{key} in {where} must be one of {', '.join(states)}, got "
                          f"{shown(value) if len(value) > 60 else repr(value)}")
    return states[value.lower()]


def _options(values: dict, cli: dict) -> Options:
    """Rule options: the CLI's ``--kvp-*`` flags win over the config file's keys."""
    try:
        return Options.from_settings({
            spec.name: cli[spec.name] if cli.get(spec.name) is not None else values.get(spec.name)
            for spec in OPTION_SPECS})
    except OptionError as exc:
        raise ConfigError(str(exc)) from None
