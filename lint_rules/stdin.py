"""``poolguard lint -`` / ``--stdin-filename NAME``: lint source read from standard input.

The bytes are linted as one file named NAME (``stdin`` by default), as ruff and ``flake8 -``
do: NAME is what the report shows and what ``per-file-ignores`` and ``exclude`` match (an
excluded NAME is not linted, as for a file named on the command line). The source goes
through the very run a file gets, from a private temporary directory, so lint, ``--diff``
and ``--fix`` mean what they mean for files; ``--fix`` writes the fixed source (or the
source unchanged) to stdout, as ruff does, and nothing on disk.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from typing import Optional

from lint_rules.cache import ResultCache
from lint_rules.config import RunConfig
from lint_rules.runner import (MAX_SOURCE_BYTES, FileResult, RunResult, _explicitly_excluded,
                               _unified_diff, run)


class StdinError(Exception):
    """Standard input cannot be read; the CLI prints it as a usage error (exit 2)."""


def read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise StdinError("standard input is closed: nothing to lint")
    try:
        data = stream.read(MAX_SOURCE_BYTES + 1)
    except (OSError, ValueError) as exc:  # EBADF when closed (<&-), EISDIR (< dir)
        raise StdinError(f"cannot read standard input: {getattr(exc, 'strerror', None) or exc}")
    if len(data) > MAX_SOURCE_BYTES:
        raise StdinError(f"standard input is larger than {MAX_SOURCE_BYTES} bytes: not linted")
    return data


def lint_stdin(name: str, source: bytes, config: RunConfig, mode: str,
               unsafe: bool) -> tuple[RunResult, Optional[bytes]]:
    """The run's result for ``source`` (``read_stdin()``) with every path shown as ``name``,
    and for ``--fix`` the bytes to write to stdout (None otherwise)."""
    if _explicitly_excluded(name, config):
        empty = RunResult(files=[], errors=[])
        return empty, source if mode == "fix" else None
    # NAME's own codes (its per-file-ignores); the temporary path must match nothing else
    alone = dataclasses.replace(config, codes=config.codes_for(name), per_file_ignores=(),
                                exclude=())
    try:
        with tempfile.TemporaryDirectory(prefix="poolguard-stdin-") as folder:
            path = os.path.join(folder, "stdin.py")
            with open(path, "wb") as handle:
                handle.write(source)
            done = run([path], alone, mode="lint" if mode == "lint" else "fix", jobs=1,
                       cache=ResultCache.disabled(), unsafe=unsafe)
            with open(path, "rb") as handle:
                fixed = handle.read()
    except OSError as exc:  # no writable temporary directory (full, read-only, missing)
        raise StdinError(f"cannot lint standard input: no temporary file for it "
                         f"({exc.strerror or exc}; set TMPDIR to a writable folder)") from None
    files = [FileResult(name, r.findings, _renamed(r.error, path, name)) for r in done.files]
    if files and mode == "diff" and fixed != source:
        files[0].diff, files[0].draft = _unified_diff(name, source, fixed), fixed
    elif files and mode == "fix":
        files[0].fixed = fixed != source
    errors = [_renamed(message, path, name) for message in done.errors]
    return RunResult(files=files, errors=errors), fixed if mode == "fix" else None


def _renamed(message: Optional[str], path: str, name: str) -> Optional[str]:
    return message.replace(path, name) if message else message
