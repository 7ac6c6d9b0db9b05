"""Run the lint engine over files for the CLI: discovery, cache, process pool, fixes, diffs.

The main process walks the paths, answers what it can from the cache and hands the rest to
a process pool in size-balanced chunks (one task per chunk, not per file, so the pickling and
scheduling overhead stays small on trees of thousands of files). Workers read, decode, lint
or fix, and return plain tuples.
"""
from __future__ import annotations

import difflib
import io
import os
import sys
import tempfile
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable, Optional

from lint_rules.cache import ResultCache, digest_bytes
from lint_rules.config import RunConfig

PARALLEL_THRESHOLD = 64  # below this many files to lint, worker start-up costs more than it saves
CHUNKS_PER_WORKER = 4


@dataclass
class FileResult:
    """What one file produced: findings (engine ``Finding``), a diff, or an I/O error."""

    path: str
    findings: list = field(default_factory=list)
    error: Optional[str] = None
    diff: str = ""
    fixed: bool = False


@dataclass
class RunResult:
    files: list
    errors: list  # one-line messages for paths that could not be read or walked

    @property
    def findings(self) -> list:
        return [(r.path, f) for r in self.files for f in r.findings]


# ---------------------------------------------------------------- discovery

def discover(paths: Iterable[str], config: RunConfig) -> tuple[list, list]:
    """``[(path, mtime_ns, size)]`` for every Python file under ``paths``, plus error lines."""
    found, errors, seen = [], [], set()
    for raw in paths:
        if config.is_excluded(raw) and os.path.abspath(raw) != os.getcwd():
            continue
        try:
            st = os.stat(raw)
        except OSError as exc:
            errors.append(f"{raw}: {exc.strerror or exc}")
            continue
        if os.path.isdir(raw):
            _walk(raw, config, found, errors)
        else:
            found.append((raw, st.st_mtime_ns, st.st_size))
    unique = []
    for item in found:
        key = os.path.normpath(item[0])
        if key not in seen:
            seen.add(key)
            unique.append((key, item[1], item[2]))
    return unique, errors


def _walk(top: str, config: RunConfig, found: list, errors: list) -> None:
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            errors.append(f"{directory}: {exc.strerror or exc}")
            continue
        for entry in entries:
            if config.is_excluded(entry.path):
                continue
            if entry.is_dir():
                if not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    stack.append(entry.path)
            elif entry.name.endswith(".py") and entry.is_file():
                st = entry.stat()
                found.append((entry.path, st.st_mtime_ns, st.st_size))


# ---------------------------------------------------------------- per-file work (workers)

def _decode(data: bytes) -> tuple[str, str]:
    """Source text and its encoding (PEP 263 cookie or BOM); newlines are kept as they are."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _undecodable(exc: Exception):
    from lint_rules.engine import Finding

    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    message = f"cannot decode the file, so it was not checked: {reason}"
    return Finding(1, 0, "KVP900", message, False)


def _write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` in one rename so an interrupted fix never leaves half a file."""
    mode = os.stat(path).st_mode
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".poolguard-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def process_file(path: str, codes, options, mode: str, known_digest: Optional[str]) -> tuple:
    """Lint (``mode='lint'``), fix in place (``'fix'``) or diff (``'diff'``) one file.

    Returns ``(status, digest, findings, diff, cacheable)``; status is ``"same"`` when the
    content digest equals ``known_digest`` (the caller then reuses its cached findings),
    ``"error:<msg>"`` for an I/O failure, else ``"ok"``.
    """
    from lint_rules.engine import fix_source, lint_source

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return f"error:{path}: {exc.strerror or exc}", None, [], "", False
    digest = digest_bytes(data)
    if digest == known_digest:
        return "same", digest, [], "", False
    try:
        text, encoding = _decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return "ok", digest, [_undecodable(exc)], "", True
    if mode == "lint":
        findings = lint_source(text, codes=codes, options=options, honor_noqa=True)
        return "ok", digest, findings, "", True
    new_text, remaining = fix_source(text, codes=codes, options=options, honor_noqa=True)
    if new_text == text:
        return "ok", digest, remaining, "", True
    if mode == "diff":
        return "ok", digest, remaining, _unified_diff(path, text, new_text), False
    new_data = new_text.encode(encoding)
    try:
        _write_atomically(path, new_data)
    except OSError as exc:
        return f"error:{path}: cannot write fix: {exc.strerror or exc}", None, [], "", False
    return "fixed", digest_bytes(new_data), remaining, "", True


def _unified_diff(path: str, old: str, new: str) -> str:
    shown = path.replace(os.sep, "/")
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=f"a/{shown}", tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def _work_chunk(mode: str, options, items: list) -> list:
    """Worker entry: ``items`` is ``[(path, codes, known_digest)]``; one result tuple each."""
    return [process_file(path, codes, options, mode, digest) for path, codes, digest in items]


# ---------------------------------------------------------------- orchestration

def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run(paths: list, config: RunConfig, *, mode: str = "lint", jobs: Optional[int] = None,
        cache: Optional[ResultCache] = None) -> RunResult:
    """Lint, fix or diff every Python file under ``paths`` with one resolved ``config``."""
    from lint_rules.engine import Finding

    cache = cache or ResultCache.disabled()
    files, errors = discover(paths, config)
    results: dict = {}
    pending = []  # (path, mtime_ns, size, codes)
    for path, mtime_ns, size in files:
        abspath = os.path.abspath(path)
        cached = cache.by_stat(abspath, mtime_ns, size)
        if cached is not None and (mode == "lint" or not any(f[4] for f in cached)):
            results[path] = FileResult(path, [Finding(*f) for f in cached])
        else:
            pending.append((path, mtime_ns, size, config.codes_for(abspath)))

    items = [(p, codes, _reusable_digest(cache, p, mode)) for p, _, _, codes in pending]
    outputs = _execute(mode, config.options, items, [size for _, _, size, _ in pending], jobs)
    for (path, mtime_ns, size, _), output in zip(pending, outputs):
        results[path] = _collect(path, mtime_ns, size, mode, output, cache, errors)
    cache.save()
    ordered = [results[path] for path, _, _ in files]
    return RunResult(files=ordered, errors=errors)


def _reusable_digest(cache: ResultCache, path: str, mode: str) -> Optional[str]:
    """The digest a worker may match to skip work: in fix/diff mode only if nothing is fixable."""
    abspath = os.path.abspath(path)
    cached = cache.findings_of(abspath)
    if cached is None or (mode != "lint" and any(f[4] for f in cached)):
        return None
    return cache.digest_of(abspath)


def _collect(path, mtime_ns, size, mode, output, cache: ResultCache, errors: list) -> FileResult:
    """Turn one worker tuple into a ``FileResult`` and keep the cache up to date."""
    from lint_rules.engine import Finding

    status, digest, findings, diff, cacheable = output
    abspath = os.path.abspath(path)
    if status.startswith("error:"):
        errors.append(status[len("error:"):])
        return FileResult(path, error=status[len("error:"):])
    if status == "same":
        cached = cache.findings_of(abspath)
        cache.store(abspath, mtime_ns, size, digest, cached)
        return FileResult(path, [Finding(*f) for f in cached])
    if status == "fixed":
        st = os.stat(path)
        mtime_ns, size = st.st_mtime_ns, st.st_size
    if cacheable:
        cache.store(abspath, mtime_ns, size, digest, [_as_row(f) for f in findings])
    return FileResult(path, list(findings), diff=diff, fixed=status == "fixed")


def _as_row(finding) -> list:
    return [finding.line, finding.col, finding.code, finding.message, finding.fixable]


def _execute(mode: str, options, items: list, sizes: list, jobs: Optional[int]) -> list:
    """Run ``_work_chunk`` over ``items`` inline or in a process pool; keeps input order."""
    if jobs is None:
        jobs = default_jobs() if len(items) >= PARALLEL_THRESHOLD else 1
    jobs = min(jobs, len(items))
    if jobs <= 1:
        return _work_chunk(mode, options, items)
    # biggest files first, dealt round-robin, so every chunk carries a similar amount of work
    order = sorted(range(len(items)), key=lambda i: -sizes[i])
    n_chunks = min(len(items), jobs * CHUNKS_PER_WORKER)
    chunks = [order[k::n_chunks] for k in range(n_chunks)]
    outputs: list = [None] * len(items)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_mp_context()) as pool:
        futures = [pool.submit(_work_chunk, mode, options, [items[i] for i in chunk])
                   for chunk in chunks]
        for chunk, future in zip(chunks, futures):
            for index, output in zip(chunk, future.result()):
                outputs[index] = output
    return outputs


def _mp_context():
    """fork where it is safe (Linux): workers inherit the already imported libcst for free."""
    import multiprocessing

    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()
