"""The ``poolguard`` command line: parses arguments and dispatches to the subcommand.

``lint`` and ``explain`` live in ``lint_rules.commands``; ``demo`` (the whole story on the
bundled pre-fix backend) in ``runtime_guard.demo.story``; ``guard-status`` in
``runtime_guard.status``. Each is imported when its subcommand runs, so ``poolguard lint``
starts without the runtime guard's modules. Exit status: 0 clean, 1 findings (or a diff)
remain, 2 usage, configuration, I/O or internal error, always one line on stderr, never a
traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from lint_rules import commands
from lint_rules.commands import EXIT_ERROR, UsageError, error, tool_version
from lint_rules.config import ConfigError
from lint_rules.options import OPTION_SPECS


class _Version(argparse.Action):
    """``--version``: the distribution's metadata is read only when it is asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        try:  # to stdout, where argparse's own goes
            _Report(sys.stdout).write(f"{parser.prog} {tool_version()}\n", flush=True)
        except UsageError as exc:
            error(str(exc))
            parser.exit(EXIT_ERROR)
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse drops a help that stdout refuses (full, closed) and exits 0: the help goes
    through ``_Report`` instead (subcommands' parsers are of this class too)."""

    def print_help(self, file=None) -> None:
        if file is not None:
            return super().print_help(file)
        _Report(sys.stdout).write(self.format_help(), flush=True)

    def error(self, message: str):
        """argparse's usage error (exit 2), its line made one short line as ours are: it
        quotes a refused value whole (``invalid choice: '...'``)."""
        super().error(commands.one_line(message))


class _Report:
    """stdout for a command whose job is what it prints (``--version``, demo, guard-status):
    a write that stdout refuses (closed, full) is the error lint reports, exit 2, never a
    traceback or an "internal error"; a reader that left (``| head``) stays quiet."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str, flush: bool = False) -> int:
        written = self._call("write", text)
        if flush:
            self._call("flush")
        return written

    def flush(self) -> None:
        self._call("flush")

    def _call(self, name: str, *args):
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except (AttributeError, OSError, ValueError) as exc:  # None when closed; ENOSPC
            reason = ("it is closed" if self._stream is None
                      else getattr(exc, "strerror", None) or exc)
            try:  # the bytes left in its buffer must not fail again at exit
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
            except (AttributeError, OSError, ValueError):
                pass
            raise UsageError(f"cannot write the report to stdout: {reason}") from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _jobs(value: str) -> int:
    """``--jobs``: a positive integer or ``auto``; more workers than the CPUs this process may
    run on only slow the run (and ``--jobs 100000`` would fork that many), so N is capped there."""
    from lint_rules.options import shown
    from lint_rules.runner import default_jobs

    if value.strip() == "auto":
        return default_jobs()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'auto', got "
                                         f"{shown(value)}")
    return min(jobs, default_jobs())


def _add_lint(commands) -> None:
    from lint_rules.output import FORMATS

    lint = commands.add_parser("lint", help="lint Python files or directories")
    lint.add_argument("paths", nargs="*", metavar="PATH",
                      help="files or directories (default: .); - reads the source from stdin")
    lint.add_argument("--stdin-filename", metavar="NAME",
                      help="lint stdin as NAME: the name shown and matched by per-file-ignores "
                           "and exclude (default: stdin)")
    lint.add_argument("--select", metavar="CODES", help="only these codes or prefixes (KVP = all)")
    lint.add_argument("--extend-select", metavar="CODES", help="add codes, e.g. the opt-in KVP004")
    lint.add_argument("--ignore", metavar="CODES", help="skip these codes or prefixes")
    action = lint.add_mutually_exclusive_group()
    action.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    action.add_argument("--diff", action="store_true",
                        help="print the diff --fix would apply; write nothing")
    action.add_argument("--add-noqa", action="store_true",
                        help="append '# noqa: KVP00x' to every line with a finding")
    action.add_argument("--write-baseline", metavar="FILE",
                        help="record every current finding in FILE and exit 0")
    lint.add_argument("--unsafe-fixes", action="store_true",
                      help="with --fix or --diff also apply unsafe fixes (they change behaviour "
                           "on purpose: review them), and mark them [*]")
    lint.add_argument("--baseline", metavar="FILE",
                      help="report only findings that FILE (from --write-baseline) lacks")
    lint.add_argument("--format", choices=FORMATS, default="text", help="output format")
    lint.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                      help="worker processes, or 'auto' (default: 1 for few files, else all CPUs)")
    lint.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    lint.add_argument("--config", metavar="FILE",
                      help="read [flake8]/[poolguard] from FILE instead of searching")
    lint.add_argument("--isolated", action="store_true", help="ignore every config file")
    for spec in OPTION_SPECS:
        lint.add_argument(f"--{spec.name}", metavar=spec.metavar, help=spec.help)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="poolguard",
        description="Find (and fix) SWA KV-pool state cached from a pool SGLang swaps at runtime.",
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    _add_lint(commands)
    explain = commands.add_parser("explain", help="show a rule's documentation and examples")
    explain.add_argument("code", metavar="CODE")
    commands.add_parser("demo", help="lint and fix the bundled pre-fix backend, then replay the "
                                     "FROZEN_KV pool swap with the runtime guard on")
    commands.add_parser("guard-status", help="list the installed SGLang's attention backends "
                                             "and what the runtime guard and fix cover")
    return parser


def _demo(args: argparse.Namespace) -> int:
    from runtime_guard.demo.story import run_demo

    return _reporting(run_demo)


def _guard_status(args: argparse.Namespace) -> int:
    from runtime_guard.status import main as guard_status

    return _reporting(guard_status)


def _reporting(run) -> int:
    """``run()`` with its prints going through ``_Report``."""
    real = sys.stdout
    sys.stdout = _Report(real)
    try:
        return run()
    finally:
        sys.stdout = real


COMMANDS = {"lint": commands.lint, "explain": commands.explain, "demo": _demo,
            "guard-status": _guard_status}


def main(argv: Optional[list] = None) -> int:
    try:
        args = build_parser().parse_args(argv)  # usage errors exit 2 from argparse itself
    except SystemExit:
        _settle_streams()  # a usage message stuck on a full stderr must not turn 2 into 120
        raise
    except UsageError as exc:  # --help to a stdout that refused it
        error(str(exc))
        return EXIT_ERROR
    except BrokenPipeError:  # `poolguard --help | head -1`: the reader left
        _settle_streams()
        return EXIT_ERROR
    try:
        commands.stdout_takes_utf8()  # no subcommand may fail on a character stdout lacks
        return COMMANDS[args.command](args)
    except (UsageError, ConfigError) as exc:
        error(str(exc))
        return EXIT_ERROR
    except BrokenPipeError:
        # `poolguard lint | head`: the reader left; stay quiet like other Unix tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        return 128 + getattr(exc, "signum", 2)  # 130 for Ctrl-C, 143 for SIGTERM
    except Exception as exc:  # a bug must still exit 2 ("error"), never 1 ("findings")
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        error(f"internal error, please report: {reason[:300]}")
        return EXIT_ERROR


def _settle_streams() -> None:
    """Flush stdout and stderr now; a stream that cannot take its bytes is pointed at /dev/null
    so the interpreter's own flush at exit cannot fail and replace the status with 120."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            except (OSError, ValueError, AttributeError):
                pass


if __name__ == "__main__":
    sys.exit(main())
