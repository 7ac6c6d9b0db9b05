"""The ``poolguard`` command: ``lint`` files (text/json/sarif/github, ``--fix``, ``--diff``),
``explain`` a code, or run the ``demo``.

Exit status: 0 clean, 1 findings (or a diff) remain, 2 usage, configuration or I/O error.
Bad input is reported in one line on stderr, never as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Optional

from lint_rules.config import ConfigError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A bad argument or input; printed as ``poolguard: error: …`` with exit status 2."""


def _jobs(value: str) -> int:
    if value == "auto":
        from lint_rules.runner import default_jobs

        return default_jobs()
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'auto', got {value!r}")
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'auto', got {value!r}")
    return jobs


def build_parser() -> argparse.ArgumentParser:
    from lint_rules.output import FORMATS

    parser = argparse.ArgumentParser(
        prog="poolguard",
        description="Find (and fix) SWA KV-pool state cached from a pool SGLang swaps at runtime.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tool_version()}")
    commands = parser.add_subparsers(dest="command", metavar="{lint,explain,demo}")
    commands.required = True

    lint = commands.add_parser("lint", help="lint Python files or directories")
    lint.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
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
    lint.add_argument("--baseline", metavar="FILE",
                      help="report only findings that FILE (from --write-baseline) lacks")
    lint.add_argument("--format", choices=FORMATS, default="text", help="output format")
    lint.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                      help="worker processes, or 'auto' (default: 1 for few files, else all CPUs)")
    lint.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    lint.add_argument("--config", metavar="FILE",
                      help="read [flake8]/[poolguard] from FILE instead of searching")
    lint.add_argument("--isolated", action="store_true", help="ignore every config file")
    lint.add_argument("--kvp-backend-bases", metavar="NAMES",
                      help="extra base-class names that make a class an attention backend")
    lint.add_argument("--kvp-swa-flags", metavar="NAMES",
                      help="extra boolean SWA flag attribute names (KVP003)")
    lint.add_argument("--kvp-pool-attr", metavar="NAME",
                      help="pool attribute the fixes read (default: _swa_kv_pool)")

    explain = commands.add_parser("explain", help="show a rule's documentation and examples")
    explain.add_argument("code", metavar="CODE")

    commands.add_parser("demo", help="lint and fix the bundled pre-fix backend, then replay the "
                                     "FROZEN_KV pool swap with the runtime guard on")
    commands.add_parser("guard-status", help="list the installed SGLang's attention backends "
                                             "and what the runtime guard and fix cover")
    return parser


def tool_version() -> str:
    from lint_rules.cache import tool_version as version

    return version()


def _write(text: str, stream=None) -> None:
    stream = stream or sys.stdout
    if text:
        stream.write(text)
        stream.flush()


def _raw_paths_on_stdout() -> None:
    """Text output names files by their raw bytes, as ``ls`` does: a file name that is not
    UTF-8 (a lone surrogate in Python) is written back as the original byte, not a crash."""
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape" if encoding == "utf8" else
                               "backslashreplace")


def _error(message: str) -> None:
    sys.stderr.write(f"poolguard: error: {message}\n")


# ---------------------------------------------------------------- lint

def resolve_config(args: argparse.Namespace):
    """The run's ``RunConfig`` from the config file and the flags, resolved once."""
    from lint_rules.config import build_run_config, find_config_file, read_config_file
    from lint_rules.engine import ALL_CODES, DEFAULT_CODES

    if args.isolated:
        config_path = None
    elif args.config:
        config_path = Path(args.config)
        if not config_path.is_file():
            raise UsageError(f"config file {args.config} does not exist")
    else:
        config_path = find_config_file(Path.cwd())
    return build_run_config(
        read_config_file(config_path),
        known=ALL_CODES,
        default=DEFAULT_CODES,
        cli_select=args.select,
        cli_extend_select=args.extend_select,
        cli_ignore=args.ignore,
        cli_options={
            "kvp-backend-bases": args.kvp_backend_bases,
            "kvp-swa-flags": args.kvp_swa_flags,
            "kvp-pool-attr": args.kvp_pool_attr,
        },
    )


def _display(path: str) -> str:
    """Paths relative to the current directory when below it, as flake8 shows them."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def command_lint(args: argparse.Namespace) -> int:
    from lint_rules.cache import ResultCache
    from lint_rules.output import render
    from lint_rules.runner import parse_timeout, run

    try:
        parse_timeout()  # a bad $POOLGUARD_PARSE_TIMEOUT is a usage error before any work
    except ValueError as exc:
        raise UsageError(str(exc))
    if args.diff and args.format != "text":
        raise UsageError("--diff prints a unified diff; it cannot be combined with --format")
    _raw_paths_on_stdout()
    config = resolve_config(args)
    cache = (ResultCache.disabled() if args.no_cache else
             ResultCache.for_run(config.codes, config.options, config.per_file_ignores))
    mode = "fix" if args.fix else "diff" if args.diff else "lint"
    result = run(args.paths or ["."], config, mode=mode, jobs=args.jobs, cache=cache)

    for message in result.errors:
        _error(message)
    found = _adopted(args, result.findings)
    if found is None:  # --write-baseline / --add-noqa: done, nothing to list
        return EXIT_ERROR if result.errors else EXIT_CLEAN
    findings = sorted(((_display(p), f) for p, f in found),
                      key=lambda item: (item[0], item[1].line, item[1].col, item[1].code))
    if mode == "diff":
        diffs = "".join(r.diff for r in result.files)
        _write(diffs)
        _summarise_diff(result, findings)
        changed = bool(diffs) or bool(findings)
    else:
        _write(render(findings, args.format, version=tool_version()))
        if args.format == "text":
            _summarise(result, findings)
        changed = bool(findings)
    if result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if changed else EXIT_CLEAN


def _adopted(args: argparse.Namespace, findings: list) -> Optional[list]:
    """Apply the adoption options; None when the run's job was to write (no listing)."""
    from lint_rules import adoption

    try:
        findings = adoption.drop_range_suppressed(findings)
        if args.write_baseline:
            count = adoption.write_baseline(args.write_baseline, findings)
            _write(adoption.baseline_summary(count, args.write_baseline), sys.stderr)
            return None
        if args.baseline:
            known = adoption.read_baseline(args.baseline)
            findings = adoption.new_findings(findings, known, args.baseline)
    except adoption.AdoptionError as exc:
        raise UsageError(str(exc))
    if not args.add_noqa:
        return findings
    lines, files, errors = adoption.add_noqa_everywhere(findings)
    for message in errors:
        _error(message)
    _write(f"poolguard: added noqa to {_plural(lines, 'line')} in {_plural(files, 'file')}\n",
           sys.stderr)
    if errors:
        raise UsageError(f"{_plural(len(errors), 'file')} could not be given a noqa")
    return None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summarise(result, findings: list) -> None:
    fixed = sum(1 for r in result.files if r.fixed)
    parts = []
    if fixed:
        parts.append(f"fixed {_plural(fixed, 'file')}")
    if findings:
        fixable = sum(1 for _, f in findings if f.fixable)
        hint = f" ({fixable} fixable with `poolguard lint --fix`)" if fixable else ""
        verb = (" remains" if len(findings) == 1 else " remain") if fixed else ""
        parts.append(f"{_plural(len(findings), 'finding')}{verb}{hint}")
    if parts:
        _write("poolguard: " + "; ".join(parts) + "\n", sys.stderr)


def _summarise_diff(result, findings: list) -> None:
    would = sum(1 for r in result.files if r.diff)
    if would or findings:
        _write(f"poolguard: --fix would change {_plural(would, 'file')}; "
               f"{_plural(len(findings), 'finding')} would remain\n", sys.stderr)


# ---------------------------------------------------------------- explain / demo

def command_explain(args: argparse.Namespace) -> int:
    from lint_rules.output import render_explain, rule_docs

    docs = {doc.code: doc for doc in rule_docs()}
    doc = docs.get(args.code.strip().upper())
    if doc is None:
        raise UsageError(f"unknown code {args.code!r}; known codes: {', '.join(docs)}")
    _write(render_explain(doc))
    return EXIT_CLEAN


def command_demo(args: argparse.Namespace) -> int:
    from lint_rules.demo import run_demo

    return run_demo()


def command_guard_status(args: argparse.Namespace) -> int:
    # The runtime guard ships in the same distribution; imported lazily, like the demo's replay.
    return importlib.import_module("runtime_guard.status").main()


COMMANDS = {"lint": command_lint, "explain": command_explain, "demo": command_demo,
            "guard-status": command_guard_status}


def main(argv: Optional[list] = None) -> int:
    args = build_parser().parse_args(argv)  # usage errors exit 2 from argparse itself
    try:
        return COMMANDS[args.command](args)
    except (UsageError, ConfigError) as exc:
        _error(str(exc))
        return EXIT_ERROR
    except BrokenPipeError:
        # `poolguard lint | head`: the reader left; stay quiet like other Unix tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug must still exit 2 ("error"), never 1 ("findings")
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        _error(f"internal error, please report: {reason[:300]}")
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
