"""What the ``lint`` and ``explain`` subcommands do, given the parsed arguments.

``lint_rules.cli`` parses the command line and calls these; each returns the exit status
(0 clean, 1 findings or a diff remain, 2 usage, configuration or I/O error) and raises
``UsageError`` for bad input, which the CLI prints as one ``poolguard: error: …`` line.
"""
from __future__ import annotations

import argparse
import errno
import os
import re
import signal
import sys
from pathlib import Path
from typing import Optional

from lint_rules.files import STOP_SIGNALS
from lint_rules.fixes import DECLINED
from lint_rules.finding import UNSHOWN

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A bad argument or input; printed as ``poolguard: error: …`` with exit status 2."""


def tool_version() -> str:
    from lint_rules.cache import tool_version as version

    return version()


def _write(text) -> None:
    """The report on stdout (``bytes`` go out as they are: a diff of the files' own bytes);
    a closed or full stdout is an error (exit 2), never a traceback."""
    if not text:
        return
    try:
        if getattr(sys.stdout, "buffer", None) is None and isinstance(text, str):
            sys.stdout.write(text)  # a stream of text alone (a caller's StringIO); None: closed
            sys.stdout.flush()
            return
        sys.stdout.flush()
        if isinstance(text, str):  # as the text layer would encode it ("\n" kept)
            text = text.encode(sys.stdout.encoding, sys.stdout.errors or "strict")
        _write_all(sys.stdout.buffer, text)
    except BrokenPipeError:
        raise  # the reader left (`| head`): the CLI stays quiet
    except (AttributeError, OSError, ValueError) as exc:  # None when closed; ENOSPC; EBADF
        reason = "it is closed" if sys.stdout is None else getattr(exc, "strerror", None) or exc
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # Python's exit flush must not fail
        raise UsageError(f"cannot write the report to stdout: {reason}")


def _write_all(buffer, data: bytes) -> None:
    """Every byte of ``data``, or an OSError. A write the device takes only part of (a disk
    that fills, a pipe whose reader leaves) returns the part it took and no error from
    Python's buffered layer, and the text layer drops even that count: the rest of a report
    was lost with the exit status of a whole one. Writing the rest gets the device's error."""
    view = memoryview(data)
    while view:
        written = buffer.write(view)
        if written is None:  # an unbuffered (python -u), non-blocking stdout that is full
            raise BlockingIOError(errno.EAGAIN, "it is non-blocking and full")
        view = view[written:]
    buffer.flush()


def write_stderr(text: str) -> None:
    """A line for the user on stderr. When stderr is closed (``2>&-``) or full (/dev/full) the
    line is lost, but never the exit status: the failure is swallowed here and stderr is
    pointed at the null device, so Python's own flush at exit cannot fail either."""
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):  # None when closed; ENOSPC, EBADF, closed
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


def stdout_takes_utf8() -> bool:
    """Whether stdout is UTF-8, after making it unable to fail on a character: text output
    names files by their raw bytes, as ``ls`` does (a name that is not UTF-8, a lone surrogate
    in Python, goes out as the original byte); on any other encoding (``LC_ALL=C`` without
    UTF-8 mode, ``PYTHONIOENCODING=ascii``) what it cannot encode becomes a backslash escape
    and paths are git-quoted (``output.text_path``), so neither is ever ambiguous."""
    from lint_rules.output import takes_utf8

    utf8 = takes_utf8(sys.stdout)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")
    return utf8


def error(message: str) -> None:
    write_stderr(f"poolguard: error: {one_line(message)}\n")


def warn(message: str) -> None:
    write_stderr(f"poolguard: warning: {one_line(message)}\n")


def note(message: str) -> None:
    """A line that is neither an error nor a warning (what the run wrote), as one line too."""
    write_stderr(f"poolguard: {one_line(message)}\n")


_C_ESCAPES = {"\t": "\\t", "\n": "\\n"}


def one_line(message: str) -> str:
    """``message`` as one short line on stderr: a control character that a name or value
    brought in (a newline, a CR, ESC; a C1 control, U+2028 or U+2029, which ``str.splitlines``
    breaks at) becomes its C escape, as git writes it in a quoted name (octal, byte by byte of
    its UTF-8), so one message is one line and nothing reaches a terminal as a control
    sequence; a byte a file name holds that is no UTF-8 (a lone surrogate here) becomes that
    byte's octal escape too; a value quoted whole is cut short (``short``)."""
    return short(UNSHOWN.sub(lambda m: _C_ESCAPES.get(m[0]) or "".join(
        "\\%03o" % byte for byte in m[0].encode("utf-8", "surrogateescape")), message))


LONG_WORD, LONG_LINE = 400, 900  # the longest word (a deep path) and message shown whole
_LONG_WORD = re.compile(r"\S{%d,}" % (LONG_WORD + 1))


def short(message: str) -> str:
    """``message`` with a word (a value, a path) of more than ``LONG_WORD`` characters cut to
    its start and end, then the whole cut in its middle past ``LONG_LINE``: a refused value of
    100,000 characters (or 30,000 bad codes) quoted whole was a line nobody reads. What is
    wrong comes first and what is accepted last, so both stay; each cut says how much it
    left out."""
    message = _LONG_WORD.sub(
        lambda m: f"{m[0][:240]}[... {len(m[0]) - 340} characters ...]{m[0][-100:]}", message)
    if len(message) <= LONG_LINE:
        return message
    return f"{message[:560]} [... {len(message) - 840} characters ...] {message[-280:]}"


def resolve_config(args: argparse.Namespace):
    """The run's ``RunConfig`` from the config file and the flags, resolved once."""
    from lint_rules.cache import rule_codes
    from lint_rules.config import (build_run_config, find_config_file, read_config_file,
                                   unread_pyproject)
    from lint_rules.options import OPTION_SPECS

    all_codes, default_codes = rule_codes(use_cache=not getattr(args, "no_cache", False))

    if args.isolated:
        config_path = None
    elif args.config is not None:
        config_path = Path(_file_name(args.config, "--config"))
        if not config_path.is_file():
            try:
                config_path.stat()
            except OSError as exc:  # a link loop, a path through a file: say which
                if exc.errno != errno.ENOENT:
                    raise UsageError(f"cannot read config file {args.config}: {exc.strerror}")
            what = "is not a regular file" if config_path.exists() else "does not exist"
            raise UsageError(f"config file {args.config} {what}")
    else:
        config_path = find_config_file(Path.cwd())
        unread = unread_pyproject(Path.cwd(), config_path)
        if unread:
            warn(unread)
    config = build_run_config(
        read_config_file(config_path),
        known=all_codes,
        default=default_codes,
        cli_select=args.select,
        cli_extend_select=args.extend_select,
        cli_ignore=args.ignore,
        cli_options={spec.name: getattr(args, spec.dest) for spec in OPTION_SPECS},
    )
    if getattr(args, "add_noqa", False) and config.disable_noqa:
        raise UsageError(f"--add-noqa: disable-noqa is set in {config.config_path}, so flake8 "
                         "and poolguard ignore every noqa comment: one would hide nothing")
    return config


def _file_name(value: str, option: str) -> str:
    """An empty name is a mistake (an unset shell variable), never "option not given"."""
    if not value.strip():
        from lint_rules.options import shown

        raise UsageError(f"{option} needs a file name, got {shown(value)}")
    return value


def _display(path: str) -> str:
    """Paths relative to the current directory when below it, as flake8 shows them."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop like Ctrl-C (the workers are ended), exit 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt_once(signum, frame) -> None:
    """The first stop signal stops the run; later ones are ignored so they cannot interrupt
    the cleanup that ends the workers (two at once used to leave the pool joined forever)."""
    for stop in STOP_SIGNALS:
        signal.signal(stop, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _stop_cleanly() -> None:
    """Route Ctrl-C, SIGTERM and SIGHUP through ``_interrupt_once`` (not where an embedding
    program installed its own handler): a killed run must end its workers with it."""
    defaults = {signal.SIGINT: signal.default_int_handler}
    for stop in STOP_SIGNALS:
        if signal.getsignal(stop) is defaults.get(stop, signal.SIG_DFL):
            signal.signal(stop, _interrupt_once)


def _refuse_bad_usage(args: argparse.Namespace) -> None:
    """What makes the run a usage error before any work."""
    from lint_rules.runner import parse_timeout

    try:
        parse_timeout()  # a bad $POOLGUARD_PARSE_TIMEOUT is a usage error before any work
        os.getcwd()  # config search and relative paths start here
    except ValueError as exc:
        raise UsageError(str(exc))
    except FileNotFoundError:
        raise UsageError("the current directory no longer exists: cd into one that does")
    if "" in args.paths:  # an unset shell variable ("$FILES"), never a file: flake8 passes it
        raise UsageError("a PATH is empty (an unset variable?): name a file or folder, "
                         "or . for this one")
    if args.diff and args.format != "text":
        raise UsageError("--diff prints a unified diff; it cannot be combined with --format")
    if args.write_baseline == "-":  # stdout holds the report: "-" would be a file of that name
        raise UsageError("--write-baseline needs a file the next run reads back, got '-' "
                         "(stdout holds the report)")


def _run_cache(args: argparse.Namespace, config) -> tuple:
    """``(cache, why it is unusable or "")``: a cache folder that cannot be one is said once,
    and the run goes on without a cache."""
    from lint_rules.cache import ResultCache, not_a_folder

    cache = (ResultCache.disabled() if args.no_cache else
             ResultCache.for_run(config.codes, config.options, config.per_file_ignores,
                                 config.disable_noqa))
    unusable = cache.path is not None and not_a_folder(cache.path.parent)
    if unusable:
        warn(f"no cache: {unusable} (set POOLGUARD_CACHE_DIR to a folder)")
        cache = ResultCache.disabled()
    return cache, unusable


def lint(args: argparse.Namespace) -> int:
    from lint_rules.cache import write_failure
    from lint_rules.runner import run

    _refuse_bad_usage(args)
    utf8 = stdout_takes_utf8()
    _stop_cleanly()
    config = resolve_config(args)
    cache, unusable = _run_cache(args, config)
    mode = "fix" if args.fix else "diff" if args.diff else "lint"
    stdin_name, linted, read_back = _stdin_name(args), None, None  # bytes no file holds
    if stdin_name is not None:
        from lint_rules.stdin import StdinError, lint_stdin, read_stdin

        try:
            source = read_stdin()
            result, fixed = lint_stdin(stdin_name, source, config, mode, args.unsafe_fixes)
        except StdinError as exc:
            raise UsageError(str(exc))
        read_back = {stdin_name: source if fixed is None else fixed}  # by the findings' name
        linted = {_display(stdin_name): read_back[stdin_name]}
    else:
        result, fixed = run(args.paths or ["."], config, mode=mode, jobs=args.jobs, cache=cache,
                            unsafe=args.unsafe_fixes), None

    failure = not unusable and write_failure()
    if failure:  # said once; the findings are this run's all the same
        warn(f"no cache written: {failure} (set POOLGUARD_CACHE_DIR to a writable folder)")
    for message in result.errors:
        error(message)
    found = result.findings
    if mode == "diff":  # its findings are of what --fix would write: so are their baseline keys
        read_back = {**(read_back or {}),
                     **{r.path: r.draft for r in result.files if r.draft is not None}}
    visible = _adopted(args, found, read_back)
    if visible is None:  # --write-baseline / --add-noqa: done, nothing left to list
        _report(args, [], utf8)  # a machine format is a whole document, even an empty one
        return EXIT_ERROR if result.errors else EXIT_CLEAN
    findings = sorted(((_display(p), f) for p, f in visible),
                      key=lambda item: (item[0], item[1].line, item[1].col, item[1].code))
    if mode == "diff":
        diffs = b"".join(r.diff for r in result.files)
        _write(diffs)
        _summarise_diff(result, findings)
        changed = bool(diffs) or bool(findings)
    else:
        if fixed is not None:  # --fix of stdin: the source on stdout, the report on stderr
            _write(fixed)
        _report(args, findings, utf8, config=config, linted=linted, to_stderr=fixed is not None)
        if args.format == "text":
            _summarise(result, findings, args.unsafe_fixes, len(found) - len(visible))
        changed = bool(findings)
    if result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if changed else EXIT_CLEAN


def _report(args: argparse.Namespace, findings: list, utf8: bool, *, config=None,
            linted: Optional[dict] = None, to_stderr: bool = False) -> None:
    """The findings in ``args.format``, on stdout (stderr when stdout holds a fixed source)."""
    from lint_rules.output import render

    shown = None
    if args.format == "sarif" and findings:  # each fix's replacements: libcst, fixed files only
        from lint_rules.fixes.preview import sarif_fixes

        shown = sarif_fixes(findings, config, linted)
    version = tool_version() if args.format == "sarif" else "0"  # read only where shown
    report = render(findings, args.format, version=version,
                    unsafe=args.unsafe_fixes, fixes=shown, utf8=utf8)
    if to_stderr:
        write_stderr(report)
    else:  # annotations are for the runner, which reads UTF-8 whatever this locale says
        _write(report.encode("utf-8") if args.format == "github" and not utf8 else report)


def _stdin_name(args: argparse.Namespace) -> Optional[str]:
    """The name standard input is linted under (``-`` or ``--stdin-filename``), else None."""
    if args.paths != ["-"] and (args.stdin_filename is None or args.paths):
        if "-" in args.paths or args.stdin_filename is not None:
            raise UsageError("- (standard input) and --stdin-filename take no other PATH")
        return None
    if args.add_noqa:
        raise UsageError("--add-noqa edits files; it cannot be used on standard input")
    if args.stdin_filename is not None:
        return _stdin_file_name(args.stdin_filename)
    return "stdin"


def _stdin_file_name(value: str) -> str:
    """``--stdin-filename``: the name of a file, never of a folder (``.``, ``..``, ``src/``,
    ``/``, a folder that exists): a diff headed ``a/.`` applies nowhere, and a folder's name
    matches per-file-ignores and exclude as no file would."""
    name = _file_name(value, "--stdin-filename")
    if os.path.basename(name) in ("", os.curdir, os.pardir) or os.path.isdir(name):
        raise UsageError(f"--stdin-filename needs a file's name, got the folder {value!r}")
    return name


def _adopted(args: argparse.Namespace, findings: list, sources: Optional[dict] = None
             ) -> Optional[list]:
    """Apply the adoption options; None when the run's job was to write (no listing).
    ``sources``: ``{path: bytes}`` linted from standard input, read there, not from disk."""
    if args.write_baseline is None and args.baseline is None and not args.add_noqa:
        return findings
    from lint_rules import adoption

    try:
        if args.write_baseline is not None:
            _file_name(args.write_baseline, "--write-baseline")
            count = adoption.write_baseline(args.write_baseline, findings, sources)
            note(adoption.baseline_summary(count, args.write_baseline))
            return None
        if args.baseline is not None:
            _file_name(args.baseline, "--baseline")
            known = adoption.read_baseline(args.baseline)
            findings = adoption.new_findings(findings, known, args.baseline, sources)
    except adoption.AdoptionError as exc:
        raise UsageError(str(exc))
    if not args.add_noqa:
        return findings
    lines, files, errors = adoption.add_noqa_everywhere(findings)
    for message in errors:
        error(message)
    write_stderr(f"poolguard: added noqa to {_plural(lines, 'line')} in "
                 f"{_plural(files, 'file')}\n")
    if errors:
        raise UsageError(f"{_plural(len(errors), 'file')} could not be given a noqa")
    return None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summarise(result, findings: list, unsafe: bool = False, baselined: int = 0) -> None:
    """ruff's one-line summary, on stderr so stdout stays flake8-shaped lines a problem matcher
    parses: "Found 3 findings (1 fixable with ...; 2 hidden by the baseline)." or "All checks
    passed!", after "Fixed N files;" for ``--fix``, then the hidden unsafe fixes if any. The
    codemod is run only by ``--fix``/``--diff``: a plain lint says its fixes *may* apply."""
    _say_declined(findings)
    fixed = sum(1 for r in result.files if r.fixed)
    notes = []
    fixable = sum(1 for _, f in findings if f.fixable)
    if fixable:
        notes.append(f"{fixable} fixable with `poolguard lint --fix`")
    rewritable = sum(1 for _, f in findings if f.unsafe_only)
    if unsafe and rewritable:
        notes.append(f"{rewritable} may be fixed with `poolguard lint --fix --unsafe-fixes`")
    if baselined:
        notes.append(f"{_plural(baselined, 'finding')} hidden by the baseline" if not findings
                     else f"{baselined} hidden by the baseline")
    detail = f" ({'; '.join(notes)})" if notes else ""
    if findings:
        line = f"Found {_plural(len(findings), 'finding')}{detail}."
    else:
        line = f"All checks passed!{detail}"
        if result.errors:  # not all passed: some paths were never checked (named above)
            line = (f"No findings in the files checked{detail}; "
                    f"{_plural(len(result.errors), 'error')} above.")
    if fixed:
        line = f"Fixed {_plural(fixed, 'file')}; {line[0].lower()}{line[1:]}"
    if rewritable and not unsafe:
        line += (f" {rewritable} hidden fix{'' if rewritable == 1 else 'es'} can be tried with "
                 "`--fix --unsafe-fixes` (it says why for each class it declines).")
    write_stderr(f"poolguard: {line}\n")


def _say_declined(findings: list) -> None:
    """One line per class ``--unsafe-fixes`` ran the codemod on and did not rewrite, by path
    and class (not by which finding carries the note first: that varied from run to run)."""
    seen = set()
    for path, f in findings:
        for title, applicability in f.fixes:
            if applicability == DECLINED:
                seen.add((path, title))
    from lint_rules.output import message_path

    for path, title in sorted(seen):
        write_stderr(f"poolguard: {message_path(path)}: {title}\n")


def _summarise_diff(result, findings: list) -> None:
    _say_declined(findings)
    would = sum(1 for r in result.files if r.diff)
    if would or findings:
        write_stderr(f"poolguard: --fix would change {_plural(would, 'file')}; "
                     f"{_plural(len(findings), 'finding')} would remain\n")


def explain(args: argparse.Namespace) -> int:
    from lint_rules.options import shown
    from lint_rules.output import render_explain
    from lint_rules.rules import rule_docs

    docs = {doc.code: doc for doc in rule_docs()}
    doc = docs.get(args.code.strip().upper())
    if doc is None:
        raise UsageError(f"unknown code {shown(args.code)}; known codes: {', '.join(docs)}")
    _write(render_explain(doc))
    return EXIT_CLEAN
