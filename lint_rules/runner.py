"""Run the lint engine over files for the CLI: discovery, cache, process pool, fixes, diffs.

The main process walks the paths and answers what it can from the cache (keyed by the bytes'
digest; a file whose stat the cache remembers with its digest is not read): a run the cache
answers whole reads no source at all. Otherwise it reads every file once, decodes those the
cache cannot answer and applies the engine's text pre-filter, so only files that can match
are parsed. Those go to a process pool largest first, one file per
task; the workers only analyse text and return findings (and fixed text), and the main process
writes fixes atomically and updates the cache once at the end. The engine, the package index
and the process pool are imported only when some file needs them.
"""
from __future__ import annotations

import errno
import gc
import io
import os
import re
import signal
import stat
import sys
import threading
import tokenize
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, List, Optional

from lint_rules.cache import ASKED, SELF_KEY, TREE_KEY, ResultCache, content_key, stat_row
from lint_rules.collector import collector_paused
from lint_rules.finding import Finding
from lint_rules.fixes import DECLINED, RESOLVED_CODES
from lint_rules.files import (WriteRefused, digest_bytes, first_two_lines, is_stray_temp,
                              package_root, read_regular_file, read_regular_file_stat,
                              remove_stray_temp, write_fix)
from lint_rules.output import message_path

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from lint_rules.config import RunConfig

PARALLEL_THRESHOLD = 64  # fewer files to read than this: worker start-up costs more than it saves
PARSE_TIMEOUT_S = 120.0  # one file analysing longer than this is stuck (libcst on odd input)
MAX_PARSE_TIMEOUT_S = 86_400.0  # a day
MAX_SOURCE_BYTES = 256 * 1024 * 1024  # no Python source is this large; reading costs 2x in RAM
TIMEOUT_ENV = "POOLGUARD_PARSE_TIMEOUT"


@dataclass
class FileResult:
    """What one file produced: findings (engine ``Finding``), a diff, or an I/O error."""

    path: str
    findings: list = field(default_factory=list)
    error: Optional[str] = None
    diff: bytes = b""
    fixed: bool = False
    draft: Optional[bytes] = None  # --diff: the bytes --fix would write, which its findings are of


@dataclass
class RunResult:
    files: list
    errors: list  # one-line messages for paths that could not be read or walked

    @property
    def findings(self) -> list:
        return [(r.path, f) for r in self.files for f in r.findings]


# ---------------------------------------------------------------- discovery

def discover(paths: Iterable[str], config: RunConfig) -> tuple[list, list]:
    """``[(path, stat)]`` for every Python file under ``paths``, plus error lines (one per path).

    One file is one file: a path named twice, a symlink and its target, two hard links, a
    directory and a file inside it all come back once (by device and inode), under the first
    name met (a symlink's target by its own name), so a finding is never reported twice and a
    fix never races with itself.
    """
    found, errors = [], []
    for raw in paths:
        if _explicitly_excluded(raw, config):
            continue
        try:
            st = os.stat(raw)
        except OSError as exc:
            errors.append((raw, exc.strerror or str(exc)))
            continue
        if stat.S_ISDIR(st.st_mode):
            _walk(raw, config, found, errors)
        elif stat.S_ISREG(st.st_mode):
            found.append((raw, st))
        else:  # a FIFO or device would block or never end
            errors.append((raw, "not a regular file, not checked"))
    unique: dict = {}  # (device, inode) -> (path, stat); the real file's name beats a link's
    for path, st in found:
        kept = unique.get((st.st_dev, st.st_ino))
        if kept is None or os.path.islink(kept[0]) and not os.path.islink(path):
            unique[(st.st_dev, st.st_ino)] = (os.path.normpath(path), st)
    return list(unique.values()), _said_once(errors)


def _said_once(errors: list) -> list:
    """``path: why`` for each ``(path, why)``, once per path however often it was named or
    walked (``x.py x.py``, ``. ./``, a folder by a relative and an absolute name); the path
    normalised as a file's findings show it (``fifo.py``, not the walk's ``./fifo.py``)."""
    lines, seen = [], set()
    for path, why in errors:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            lines.append(f"{message_path(os.path.normpath(path))}: {why}")
    return lines


def _explicitly_excluded(raw: str, config: RunConfig) -> bool:
    """A named path is excluded if it, or a directory between it and the current directory,
    matches: pre-commit passes ``tests/fixtures/x.py`` even when ``tests/fixtures`` is excluded.
    Directories above the current one never count (a checkout may live under ``build/``).
    """
    absolute = os.path.abspath(raw)
    relative = os.path.relpath(absolute)
    if relative == os.curdir:
        return False
    if relative.startswith(os.pardir):
        return config.is_excluded(absolute)
    prefix = os.getcwd()
    for part in relative.split(os.sep):
        prefix = os.path.join(prefix, part)
        if config.is_excluded(prefix):
            return True
    return False


def _walk(top: str, config: RunConfig, found: list, errors: list) -> None:
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            errors.append((directory, exc.strerror or str(exc)))
            continue
        for entry in entries:
            if is_stray_temp(entry.name):
                remove_stray_temp(entry)  # left by a --fix that was killed at the rename
                continue
            if config.is_excluded(entry.path):
                continue
            try:
                # symlinked directories are not followed (as os.walk and flake8): no loops
                if entry.is_dir(follow_symlinks=False):
                    if not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                        stack.append(entry.path)
                elif entry.name.endswith(".py") and entry.is_file():
                    found.append((entry.path, entry.stat()))
                elif entry.name.endswith(".py") and not entry.is_dir():
                    # a FIFO, socket, device or dangling link: reported, never silently dropped
                    errors.append((entry.path, _unlintable(entry)))
            except OSError as exc:  # vanished while walking: nothing to lint
                if entry.name.endswith(".py") and exc.errno != errno.ENOENT:  # a link loop
                    errors.append((entry.path, f"{exc.strerror or exc}, not checked"))


def _unlintable(entry: os.DirEntry) -> str:
    if entry.is_symlink() and not os.path.exists(entry.path):
        return "broken symbolic link, not checked"
    return "not a regular file, not checked"


# ---------------------------------------------------------------- reading (main process)

def _decode(data: bytes) -> tuple[str, str]:
    """Source text and its encoding (PEP 263 cookie or BOM); newlines are kept as they are.

    A UTF-8 BOM stays in the text as U+FEFF: the engine drops one leading U+FEFF from any
    source it is given (a str read as plain UTF-8 has it), so only one layer removes it and a
    file that starts with two BOMs is refused, as Python refuses it ("invalid non-printable
    character U+FEFF"), instead of being linted as if it had one."""
    # a cookie counts only on the first two lines, which end at CR too (a CR-only file's
    # first "\n" may be nowhere): "decoding" further on is no cookie
    head = first_two_lines(data)
    if b"coding" not in head:
        return data.decode("utf-8"), "utf-8"  # no cookie: PEP 3120's default (BOM or not)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig":  # a BOM and a utf-8 cookie: the BOM is kept, as above
        encoding = "utf-8"
    text = data.decode(encoding)
    if b"coding" in head and "coding" not in "".join(text.splitlines(True)[:2]):
        # the cookie does not survive its own codec (utf-16 declared in an ASCII-based file):
        # Python refuses the file ("encoding problem"), never a silent skip of garbage text
        raise SyntaxError(f"encoding problem: {encoding}")
    return text, encoding


def encode_edit(text: str, encoding: str, digest: str, new_text: str) -> tuple[bytes, bytes]:
    """The bytes of a file read as ``text`` in ``encoding`` (``digest``: of the bytes read) and
    of ``new_text`` (its fix, its noqa) in that codec; UnicodeError saying why when the codec
    cannot hold the edit (a --kvp-pool-attr name it lacks) or does not give the file's own
    bytes back from its text, so it would not give the edit its meaning either
    (``# coding: unicode_escape`` writes every newline as ``\\n``: the module would become one
    comment; ``idna`` refuses a dotted name longer than 63 characters)."""
    try:
        old = text.encode(encoding)
        if digest_bytes(old) == digest:
            return old, new_text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise UnicodeError(f"the file's encoding ({encoding}) cannot hold "
                           f"{exc.object[exc.start]!r}") from None
    except UnicodeError as exc:  # a codec's own refusal (idna: a label too long)
        raise UnicodeError(f"the file's encoding ({encoding}) cannot encode it ({exc})") from None
    raise UnicodeError(f"the file's encoding ({encoding}) does not give its own bytes back "
                       f"from its text")


def _not_checked(reason: str, remedy: Optional[str] = None):
    """The KVP900 finding of a file the engine never saw (undecodable, crashed, stuck)."""
    from lint_rules.rules.kvp900_parse_error import ParseFailure

    return Finding(1, 0, ParseFailure.CODE, ParseFailure.message_for(reason, remedy), False)


def _undecodable(exc: Exception):
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return _not_checked(f"cannot decode the file ({reason})")


@dataclass
class _Job:
    """One file that must be parsed: its text travels to the worker, so both see one content."""

    path: str
    codes: frozenset
    digest: str = ""
    text: str = ""
    encoding: str = "utf-8"
    unsafe: bool = False  # a fix/diff also applies unsafe fixes (--unsafe-fixes)
    honor_noqa: bool = True  # False under the config's disable-noqa, as in flake8
    recheck: Optional[tuple] = None  # (findings, deps) cached, to confirm against the graph
    key: str = field(init=False, repr=False)  # its cache key: every job is looked up

    def __post_init__(self) -> None:  # path, codes and digest never change once a job is made
        self.key = content_key(self.digest, self.codes)


# ---------------------------------------------------------------- analysis (workers)

_PACKAGE = None  # the run's package index (lint_rules.package), set before workers start


def use_package(index) -> None:
    """Worker initializer: the package index every file of this run is analysed against."""
    global _PACKAGE
    _PACKAGE = index


def analyse(mode: str, options, job: _Job) -> tuple:
    """``(findings, new_text, error, deps)`` for one file; ``new_text`` is None in lint mode;
    ``deps`` are the other modules of the package its analysis read (``{path: digest}``).

    The engine promises not to raise; if it does anyway, that file becomes a one-line error
    (exit 2) naming it, instead of a traceback that loses every other file's findings.
    """
    from lint_rules.engine import fix_source, lint_source

    kwargs = {"codes": job.codes, "options": options, "honor_noqa": job.honor_noqa,
              "package": _PACKAGE, "path": job.path}
    try:
        if mode == "lint":
            found = lint_source(job.text, **kwargs)
            return found, None, None, _deps_of(job.path)
        new_text, remaining = fix_source(job.text, unsafe=job.unsafe, **kwargs)
        # what is left was found with the module as read where other modules' summaries read
        # it back (a cycle of bases): once fixed, that read is stale, and kept as a dependency
        return remaining, new_text, None, _deps_of(job.path, new_text != job.text)
    except Exception as exc:  # reported per file, see the docstring
        return [], None, (f"{message_path(job.path)}: internal error, please report: "
                          f"{type(exc).__name__}: {exc}")


def _deps_of(path: str, changed: bool = False) -> Optional[dict]:
    """What the analysis of ``path`` read of the package: other modules, and its own module
    as other modules' summaries read it (through a cycle) once ``changed`` (fixed) since."""
    if _PACKAGE is None:
        return None
    deps = _PACKAGE.deps()
    if not changed:
        deps.pop(os.path.abspath(path), None)
    return deps or None


def _pool_size(jobs: Optional[int], to_read: int) -> int:
    """Workers for this run: ``--jobs``, else every CPU once enough files need reading."""
    if jobs is None:
        jobs = default_jobs() if to_read >= PARALLEL_THRESHOLD else 1
    return max(1, min(jobs, to_read))


def _mp_context():
    """fork where it is safe (Linux): workers inherit the already imported libcst for free."""
    import multiprocessing

    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


# ---------------------------------------------------------------- writing fixes

_GIT_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")  # lines as patch and git apply see them


def _unified_diff(path: str, old: bytes, new: bytes) -> bytes:
    """The diff of the file's bytes, split only at ``\n`` as ``git apply`` and ``patch``
    split: a BOM, another encoding, CR-only newlines, form feeds, U+2028 or U+0085 inside a
    line all apply exactly (``str.splitlines`` would break lines where git does not)."""
    import difflib

    from lint_rules.output import git_quoted

    # git apply refuses a '.' or '..' part ("invalid path") and patch a '..': the name is
    # normalised, and one outside the current folder (../x.py) said by its absolute path;
    # that loses its leading slash, as in git's own diff (a/tmp/x.py, not a//tmp/x.py,
    # which neither git apply nor patch -p1 takes from /)
    path = os.path.normpath(path)
    if path == os.pardir or path.startswith(os.pardir + os.sep):
        path = os.path.abspath(path)
    shown = os.fsencode(path.replace(os.sep, "/")).lstrip(b"/")
    # a name with a space ends in a tab, as git ends it: GNU patch reads a name up to the
    # first space otherwise ("can't find file to patch" for a/x y.py)
    tab = b"\t" if b" " in shown else b""
    lines = difflib.diff_bytes(
        difflib.unified_diff, _GIT_LINE.findall(old), _GIT_LINE.findall(new),
        fromfile=git_quoted(b"a/" + shown) + tab, tofile=git_quoted(b"b/" + shown) + tab,
    )
    return b"".join(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n"
                    for line in lines)


# ---------------------------------------------------------------- orchestration

def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _TreeRun:
    """One ``poolguard lint`` run over a file list; the cache is consulted and updated here."""

    def __init__(self, config: RunConfig, mode: str, cache: ResultCache,
                 unsafe: bool = False, keep: Optional[dict] = None,
                 drafts: Optional[dict] = None) -> None:
        self.config, self.mode, self.cache, self.unsafe = config, mode, cache, unsafe
        self.keep = keep or {}  # path -> FileResult of an earlier pass that still holds
        # --diff writes nothing, so a later pass reads what --fix would have written instead:
        # path -> (the bytes on disk, the fixed bytes so far), and the paths changed this pass
        self.drafts: dict = drafts if drafts is not None else {}
        self.changed: set = set()
        self.read_by: dict = {}  # path -> the other modules its result read
        self.order: list = []  # the run's files, as discovered
        self.results: dict = {}
        self.errors: list = []
        self.digests: dict = {}  # path -> digest of the files read for cached deps
        self.package = self.headers = None  # the package index, its class headers' cache: built
        # by _connect, only when some file needs analysing
        self.texts: dict = {}  # path -> (text, encoding) decoded while reading class headers
        self.matched: dict = {}  # path -> the text pre-filter's answer, asked there too
        self.fulls: dict = {}  # path -> absolute path, computed once per file
        self.cwd = os.getcwd()  # what abspath would ask the kernel for, once per file

    def _full(self, path: str) -> str:
        full = self.fulls.get(path)
        if full is None:
            full = self.fulls[path] = os.path.normpath(os.path.join(self.cwd, path))
        return full

    def _reusable(self, cached: Optional[list]) -> bool:
        """Cached findings answer a lint; a fix/diff only when none of them has a fix to apply
        (an unsafe one counts with --unsafe-fixes). With --unsafe-fixes, neither does a hazard
        the resolver rewrite is for: the codemod runs on its class and may decline it, and
        says why (a lint, which never runs it, cached the finding with no fix at all)."""
        return cached is not None and (self.mode == "lint" or not any(
            f[4] or (self.unsafe and (f[5] or f[2] in RESOLVED_CODES)) for f in cached))

    def _done(self, path: str, findings: list, **extra) -> None:
        found = [Finding(*f[:5], tuple(map(tuple, f[5]))) for f in findings]
        self.results[path] = FileResult(path, found, **self._drafted(path, extra))

    def _drafted(self, path: str, extra: dict) -> dict:
        """``extra`` with the diff of what an earlier pass of this --diff fixed in ``path``,
        unless it brings its own: a later pass that leaves the draft as it is keeps its diff."""
        if path in self.drafts and "diff" not in extra:
            original, draft = self.drafts[path]
            extra = dict(extra, diff=_unified_diff(path, original, draft))
        return extra

    def parse_jobs(self, files: list):
        """Answer from the cache or the pre-filter where possible; yield the files to parse,
        largest first so the longest parses start earliest (longest-processing-time order).
        A tree the cache answers by stat alone is not read; otherwise every file is."""
        files = sorted(files, key=lambda item: -item[1].st_size)
        if self._answered_by_stat(files):
            return
        self.results.clear()
        self.digests.clear()
        read = [(path, self._bytes(path)) for path, _ in files]
        self.stamp = _tree_stamp(map(self._full, (path for path, _ in read)), self.digests)
        missed = [(job, data) for job, data in (
            (self._cached(path), data) for path, data in read if data is not None) if job]
        # the class graph only serves files the cache cannot answer alone: a warm run of an
        # unchanged tree never builds it
        promoted = self._connect(read, {job.path for job, _ in missed}) if missed else frozenset()
        for job, data in missed:
            if job.recheck is not None:
                job = self._rechecked(job)
            job = job and self._read(job, data, promoted)
            if job is not None:
                yield job

    def _answered_by_stat(self, files: list) -> bool:
        """Whether every file's digest is known by its stat and every one's result by the
        cache; the results are then recorded, else whatever was recorded is left to undo."""
        if self.drafts:  # a later pass of --diff: some files are not what their stat says
            return False
        for path, st in files:
            digest = self.cache.digest_by_stat(self._full(path), st)
            if digest is None:
                return False
            self.digests[self._full(path)] = digest
        self.stamp = _tree_stamp(map(self._full, (path for path, _ in files)), self.digests)
        return all(self._cached(path) is None for path, _ in files)

    def _bytes(self, path: str) -> Optional[bytes]:
        if path in self.drafts:  # what --fix would have written by now (never on disk)
            data = self.drafts[path][1]
            self.digests[self._full(path)] = digest_bytes(data)
            return data
        try:  # bounded: a huge (or sparse) file must cost its own line, not the run's memory
            data, st = read_regular_file_stat(path, MAX_SOURCE_BYTES)
        except OSError as exc:
            self.errors.append(f"{message_path(path)}: {exc.strerror or exc}")
            self.results[path] = FileResult(path, error=self.errors[-1])
            return None
        full = self._full(path)
        digest = self.cache.digest_by_stat(full, st)
        if digest is None or not _unchanged_since(path, st):
            digest = digest_bytes(data)
            self.cache.remember_stat(full, st, digest)
        self.digests[full] = digest
        return data

    def _connect(self, read: list, missed: set) -> frozenset:
        """The package's class graph from every file's class headers (cached by digest):
        which files hold backend code by inheritance alone, text pre-filter or not. A text
        decoded here for its headers is pre-filtered at once if its file is ``missed``."""
        from lint_rules.engine import may_match
        from lint_rules.package import HeaderCache, PackageIndex, class_headers
        from lint_rules.rules._vocab import mentions_vocabulary

        contents = {self._full(path): data for path, data in read if data is not None}
        self.package = PackageIndex([path for path, _ in read], self.config.options,
                                    contents, self.digests)
        self.package.stamp = self.stamp
        self.headers = HeaderCache(self.config.options, enabled=self.cache.path is not None)
        headers = {}
        for path, data in read:
            if data is None:
                continue
            digest = self.digests[self._full(path)]
            found = self.headers.get(digest)
            if found is None:
                try:
                    text = _decode(data)
                    found = class_headers(text[0])
                except (SyntaxError, UnicodeError, LookupError):
                    found = []
                else:  # kept only for a file the engine will see: a run holds few texts
                    if path in missed:
                        self.matched[path] = may_match(text[0], self.config.options)
                        if self.matched[path]:
                            self.texts[path] = text
                self.headers.put(digest, found)
            headers[self._full(path)] = found
        return self.package.connect(headers, _Mentions(self, mentions_vocabulary))

    def _cached(self, path: str) -> Optional[_Job]:
        """The file's job, unless its cached result still answers (then it is recorded); a
        result that asked the package a question is rechecked once the class graph is built,
        unless the whole tree is as it was when the result was last checked."""
        if path in self.keep:  # an earlier pass of this --fix answered it for these bytes
            self.results[path] = kept = self.keep[path]
            if kept.error and kept.error not in self.errors:  # asked twice: by stat, then read
                self.errors.append(kept.error)
            return None
        full = self._full(path)
        job = _Job(path, self.config.codes_for(full), self.digests[full], unsafe=self.unsafe,
                   honor_noqa=not self.config.disable_noqa)
        cached = self.cache.findings_of(job.key)
        if not self._reusable(cached):
            return job
        deps = self.cache.deps_of(job.key)
        if not any(key.startswith(ASKED) for key in deps):  # the file's own result
            return self._store(job, cached, deps) if self._deps_hold(deps) else job
        if deps.get(TREE_KEY) == self.stamp and deps.get(SELF_KEY, full) == full:
            return self._store(job, cached, deps)
        job.recheck = (cached, deps)
        return job

    def _rechecked(self, job: _Job) -> Optional[_Job]:
        """None once the cached result is confirmed: every file it read is unchanged and every
        question it asked the package is answered alike (a new subclass, a new module...)."""
        cached, deps = job.recheck
        job.recheck = None
        if not (self._deps_hold(deps) and self.package.answers_hold(deps, job.path)):
            return job
        return self._store(job, cached, dict(deps, **{TREE_KEY: self.stamp}))

    def _read(self, job: _Job, data: bytes, promoted: frozenset) -> Optional[_Job]:
        path, full = job.path, self._full(job.path)
        matched = self.matched.pop(path, None)  # None: not pre-filtered by _connect
        if matched is False and full not in promoted:
            return self._skipped(job)
        try:
            job.text, job.encoding = self.texts.pop(path, None) or _decode(data)
        except (SyntaxError, UnicodeError, LookupError) as exc:
            return self._store(job, [_as_row(_undecodable(exc))] if "KVP900" in job.codes else [])
        from lint_rules.engine import may_match

        if matched is None and not may_match(job.text, self.config.options) and (
                full not in promoted):
            return self._skipped(job)
        return job

    def _skipped(self, job: _Job) -> None:
        """A file no rule can fire on (the engine skips it too), and no package backend
        inherits: its result is what the class graph answered for its classes."""
        return self._store(job, [], self.package.context_of(self._full(job.path)) or None)

    def _store(self, job: _Job, rows: list, deps: Optional[dict] = None, cacheable: bool = True,
               **extra) -> None:
        # a "declined" note exists only because --fix/--diff ran the fix: a later lint of the
        # same bytes must not be answered with it (nor lose its "[*]" to it)
        if cacheable and not any(note[1] == DECLINED for row in rows for note in row[5]):
            self.cache.store(job.key, rows, deps)
        self.read_by[job.path] = deps or {}
        self._done(job.path, rows, **extra)

    def stale(self) -> frozenset:
        """The files whose result read a module this ``--fix`` rewrote after reading it."""
        fixed = {self._full(path) for path, r in self.results.items()
                 if r.fixed and path not in self.keep or path in self.changed}
        return frozenset(path for path, deps in self.read_by.items() if fixed.intersection(deps))

    def _deps_hold(self, deps: dict) -> bool:
        """Every other module a cached result read is as it was (package-wide analysis)."""
        for path, digest in deps.items():
            if path.startswith(ASKED):
                continue  # a question, not a file: ``PackageIndex.answers_hold``
            if path not in self.digests:
                try:  # never a blocking open: the module may be a FIFO now
                    self.digests[path] = digest_bytes(read_regular_file(path, MAX_SOURCE_BYTES))
                except OSError:
                    self.digests[path] = None
            if self.digests[path] != digest:
                return False
        return True

    def complete(self, job: _Job, findings: list, new_text: Optional[str], error=None,
                 deps: Optional[dict] = None, cacheable: bool = True) -> None:
        """Record one analysed file: write the fix or keep the diff, and update the cache
        (unless not ``cacheable``: a result the time limit made)."""
        if error:
            self.errors.append(error)
            self.results[job.path] = FileResult(job.path, error=error,
                                                **self._drafted(job.path, {}))
            return
        rows = [_as_row(f) for f in findings]
        if new_text is None or new_text == job.text:
            return self._store(job, rows, deps, cacheable)
        try:
            old, data = encode_edit(job.text, job.encoding, job.digest, new_text)
        except UnicodeError as exc:
            return self._unfixed(job, f"cannot apply the fix: {exc}")
        if self.mode == "diff":
            original = self.drafts.get(job.path, (old,))[0]
            self.drafts[job.path] = (original, data)
            self.changed.add(job.path)
            self.read_by[job.path] = deps or {}
            return self._done(job.path, rows, diff=_unified_diff(job.path, original, data))
        try:
            write_fix(job.path, job.digest, data)
        except (OSError, WriteRefused) as exc:
            reason = getattr(exc, "strerror", None) or exc
            return self._unfixed(job, f"cannot write the fix: {reason}")
        fixed = _Job(job.path, job.codes, digest_bytes(data))
        self._store(fixed, rows, deps, fixed=True)

    def _unfixed(self, job: _Job, why: str) -> None:
        """An error line for the file; it keeps its findings, as a lint of its bytes shows them."""
        self.errors.append(f"{message_path(job.path)}: {why}")
        before = analyse("lint", self.config.options, job)[0]
        self.results[job.path] = FileResult(job.path, before, error=self.errors[-1],
                                            **self._drafted(job.path, {}))


class _Mentions:
    """Whether a file's text names the rules' vocabulary, asked by the class graph only of the
    few files that define a class package backends inherit (lowering every file is slow)."""

    def __init__(self, run: _TreeRun, mentions) -> None:
        self.run, self.mentions = run, mentions
        self.answers: dict = {}  # path -> its answer, asked once

    def get(self, path: str) -> bool:
        if path not in self.answers:
            self.answers[path] = self._mentions(path)
        return self.answers[path]

    def _mentions(self, path: str) -> bool:
        try:
            text, _ = _decode(self.run.package.contents[os.path.abspath(path)])
        except (KeyError, SyntaxError, UnicodeError, LookupError):
            return False
        return self.mentions(text, self.run.config.options)


def _unchanged_since(path: str, st) -> bool:
    """The file still has the stat it had before it was read: the bytes read are those the
    stat was remembered with (a write while they were read would have changed its ctime)."""
    try:
        return stat_row(os.stat(path)) == stat_row(st)
    except OSError:
        return False


def _tree_stamp(fulls: Iterable[str], digests: dict) -> str:
    """One digest of the run's file list, every file's content and the folder its modules are
    named from (``package.TREE_KEY``; an ``__init__.py`` added above the run renames them)."""
    fulls = list(fulls)
    rows = sorted(f"{full}\0{digests.get(full)}" for full in fulls)
    rows.append(f"\0root\0{package_root(fulls)}")
    return digest_bytes("\n".join(rows).encode("utf-8", "surrogateescape"))


def _as_row(finding) -> list:
    return [finding.line, finding.col, finding.code, finding.message, finding.fixable,
            [list(fix) for fix in finding.fixes]]


def run(paths: list, config: RunConfig, *, mode: str = "lint", jobs: Optional[int] = None,
        cache: Optional[ResultCache] = None, unsafe: bool = False) -> RunResult:
    """Lint, fix or diff every Python file under ``paths`` with one resolved ``config``
    (``unsafe``: a fix or diff applies the unsafe fixes too)."""
    # no cyclic collection while the run builds its syntax trees: they live to its end, and
    # the collector walked all of them again each time the heap grew (a third of a cold run's
    # CPU on SGLang's tree; the peak memory is the same without it). Workers collect their own
    # garbage after each file (``_analyse_job``). What the run leaves is frozen: its first
    # collection would otherwise walk every object the run made (seconds: a Ctrl-C, or the
    # exit, would wait for it); a caller in the same process keeps what it left in cycles,
    # which are small.
    with collector_paused(freeze=True):
        return _run(paths, config, mode, jobs, cache or ResultCache.disabled(), unsafe)


# Fixing one module can change another's findings (a subclass gating on the flag the fix made
# a property): --fix analyses those files again, on the fixed package, this many times at most;
# --diff too, on the package as --fix would have left it (its drafts), so it shows what --fix
# writes.
PACKAGE_FIX_PASSES = 4


def _run(paths: list, config: RunConfig, mode: str, jobs: Optional[int],
         cache: ResultCache, unsafe: bool) -> RunResult:
    state = _pass(paths, config, mode, jobs, cache, unsafe, None)
    fixed = set()
    for _ in range(PACKAGE_FIX_PASSES - 1):
        fixed.update(r.path for r in state.results.values() if r.fixed)
        stale = state.stale() if mode != "lint" else ()
        if not stale:
            break
        keep = {path: r for path, r in state.results.items() if path not in stale}
        earlier = state
        state = _pass(paths, config, mode, jobs, cache, unsafe, keep, state.drafts)
        _carry_vanished(earlier, state)
    files = [state.results[path] for path in state.order]
    for result in files:
        result.fixed = result.fixed or result.path in fixed
        if result.path in state.drafts:
            result.draft = state.drafts[result.path][1]
    return RunResult(files=files, errors=state.errors)


def _carry_vanished(earlier: _TreeRun, state: _TreeRun) -> None:
    """A file an earlier pass read that the walk of a later one no longer finds (deleted or
    renamed while --fix ran) keeps what the earlier pass found, its fix and its error line:
    it was analysed (and maybe written), and a file is analysed or reported, never dropped."""
    found = set(state.order)
    for path in earlier.order:
        if path not in found:
            state.order.append(path)
            result = state.results[path] = earlier.results[path]
            if result.error and result.error not in state.errors:
                state.errors.append(result.error)


def _pass(paths: list, config: RunConfig, mode: str, jobs: Optional[int],
          cache: ResultCache, unsafe: bool, keep: Optional[dict],
          drafts: Optional[dict] = None) -> _TreeRun:
    """One reading and analysis of every file (``keep``: the results a later pass reuses;
    ``drafts``: what the passes of a --diff have fixed so far)."""
    files, errors = discover(paths, config)
    if mode == "fix" and keep is None:
        _clean_strays_beside(paths)
    state = _TreeRun(config, mode, cache, unsafe, keep, drafts)
    state.order = [path for path, _ in files]
    state.errors.extend(errors)
    to_parse = list(state.parse_jobs(files))  # reading is cheap; the count sizes the pool
    use_package(state.package)
    if state.headers is not None:
        state.headers.save(state.digests.values())
    if to_parse:
        _analyse_all(state, to_parse, _pool_size(jobs, len(to_parse)), mode, config.options)
    cache.save()
    return state


class _Overtime(BaseException):
    """The package summaries took longer than one file may (``parse_timeout``); a
    BaseException, so no ``except Exception`` in the analysis can take it for its own."""


def _prepare(package, paths: list) -> None:
    """The summaries a worker's files read, built once before its first file, in one order
    (``PackageIndex.prepare``; each worker has its own family of files: ``families``).

    ``ast`` only (no libcst), so nothing here can crash the process; an error, a recursion
    deeper than the engine allows or a summary slower than ``parse_timeout`` only drops what
    was built, and the workers summarise on demand, each file under its own limit.
    """
    from lint_rules.engine import _deep

    timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if timer:
        previous = signal.signal(signal.SIGALRM, _overtime)
    try:
        try:  # armed inside: a short limit can fire before the next line runs
            if timer:
                signal.setitimer(signal.ITIMER_REAL, parse_timeout())
            _deep(_prepare_once, package, paths)  # once more, deeper, after a RecursionError
        finally:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except (Exception, _Overtime):  # a bug or a limit (also as it is disarmed): the workers
        package.forget()  # summarise on demand
    finally:
        if timer:
            signal.signal(signal.SIGALRM, previous)


def _prepare_once(package, paths: list) -> None:
    try:
        package.prepare(paths)
    except BaseException:
        package.forget()  # a half-built summary (a cycle guard) must not be kept
        raise


def _overtime(signum, frame) -> None:
    raise _Overtime()


def _clean_strays_beside(paths: Iterable[str]) -> None:
    """Files named one by one (pre-commit): their folders are not walked, so look there for
    temp files a killed ``--fix`` left (walked folders are cleaned while walking)."""
    folders = {os.path.dirname(os.path.abspath(p)) for p in paths if not os.path.isdir(p)}
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if is_stray_temp(entry.name):
                        remove_stray_temp(entry)
        except OSError:
            continue


def _analyse_all(state: "_TreeRun", jobs: Iterable[_Job], workers: int, mode: str, options) -> None:
    """Analyse every job in worker processes, never in this one.

    libcst's native parser can crash the process on hostile input (a segfault, not an
    exception), so parsing never happens in the process that holds everyone's results. When a
    worker dies the pool is broken and every unfinished job comes back; those files are
    re-analysed one per fresh process, so only the file that crashes pays for it (KVP900).
    """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    orphans, pools, submitted = [], [], []
    try:
        for group in _groups(jobs, workers):
            pool = ProcessPoolExecutor(max_workers=1, mp_context=_mp_context(),
                                       initializer=_start_worker,
                                       initargs=(_PACKAGE, [job.path for job in group]))
            pools.append(pool)
            for job in group:
                try:
                    submitted.append((job, pool.submit(_analyse_job, mode, options, job)))
                except BrokenProcessPool:
                    orphans.append(job)
        timeout = parse_timeout()
        for job, future in submitted:
            try:
                result = _result_unless_stuck(future, timeout)
            except BrokenProcessPool:
                orphans.append(job)
                continue
            state.complete(job, *result)
    except BaseException as exc:  # Ctrl-C (once or many times) or a bug: stop now, never wait
        if isinstance(exc, KeyboardInterrupt) and (
                threading.current_thread() is threading.main_thread()):
            # a second Ctrl-C (a terminal sends one per key press, to the whole group) must not
            # cut the abandoning short: workers left alive keep the exit waiting on them
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        for pool in pools:
            _abandon(pool)
        raise
    for pool in pools:
        pool.shutdown(wait=True)
    for job in orphans:
        state.complete(job, *analyse_isolated(mode, options, job, parse_timeout()))


def _groups(jobs: list, workers: int) -> List[list]:
    """The jobs of each worker: one family of files each (``PackageIndex.families``)."""
    if _PACKAGE is None or workers == 1:
        return [jobs]
    by_path = {job.path: job for job in jobs}
    return [[by_path[path] for path in group]
            for group in _PACKAGE.families(list(by_path), workers)]


def _start_worker(package, paths: list) -> None:
    _ignore_interrupts()
    use_package(package)
    if package is not None and paths:
        _prepare(package, paths)
    # what the fork inherited (the package's trees and summaries) is never garbage: frozen,
    # the collector skips it; what each analysis leaves is collected once it ends
    # (``_analyse_job``), never by the collector's own thresholds
    gc.disable()
    gc.freeze()


def _analyse_job(mode: str, options, job: _Job) -> tuple:
    """``analyse`` in a worker, then one collection of what it left, and what survives
    (summaries and trees later files read) frozen. Collected by thresholds instead, each
    analysis's objects were walked again and again as they aged (0.25 s of a cold run's CPU
    on SGLang's tree; once each, 0.1 s), for the same peak memory."""
    try:
        return analyse(mode, options, job)
    finally:
        gc.collect()
        gc.freeze()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the main process, which ends them: a terminal sends SIGINT to
    the whole process group, and a worker's own KeyboardInterrupt would only print a traceback
    and keep the pool's shutdown waiting on it. SIGTERM/SIGHUP end a worker at once (a forked
    one inherits the main process's handlers), and a worker whose parent is gone ends too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    _exit_with_parent()


def _exit_with_parent() -> None:
    """A daemon thread that ends this worker once its parent is gone (killed with SIGKILL,
    say): an orphan would otherwise wait on the task queue forever, holding the caller's
    pipes open. Polling ``getppid`` is portable; Linux's PR_SET_PDEATHSIG is not."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="poolguard-parent-watch", daemon=True).start()


def _kill_children() -> None:
    """End this process's worker processes (``multiprocessing.active_children``: the public
    view of them; the executor has no public way to stop a running task)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        child.kill()


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Kill the workers and drop the queue without waiting for running tasks."""
    _kill_children()
    pool.shutdown(wait=False, cancel_futures=True)


def parse_timeout() -> float:
    """Seconds one file may take: ``$POOLGUARD_PARSE_TIMEOUT``, else 120 (ValueError if bad).

    Bounded by ``MAX_PARSE_TIMEOUT_S``: a wait longer than the platform's can not be waited
    for (``threading.TIMEOUT_MAX``), and nothing that large is a useful limit anyway.
    """
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return PARSE_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_PARSE_TIMEOUT_S:  # also refuses nan and inf
        from lint_rules.options import shown

        raise ValueError(f"{TIMEOUT_ENV}={shown(raw)} is not a number of seconds in "
                         f"(0, {MAX_PARSE_TIMEOUT_S:g}]")
    return value


def _result_unless_stuck(future, timeout: float) -> tuple:
    """The future's result. If nothing finishes for ``timeout`` seconds a worker is stuck on
    a file (libcst's parser can take minutes on some broken, deeply nested input): the workers
    are killed, which breaks the pool, and every unfinished file is re-run on its own under
    the same limit, so the stuck one costs a KVP900 instead of the run."""
    from concurrent.futures import TimeoutError as FutureTimeout

    try:
        return future.result(timeout=timeout)
    except FutureTimeout:
        _kill_children()  # the executor cannot cancel a running task
        return future.result()  # BrokenProcessPool, unless it finished just now


def _isolated_child(connection, mode: str, options, job: _Job) -> None:
    _ignore_interrupts()
    connection.send(analyse(mode, options, job))
    connection.close()
    if _mp_context().get_start_method() == "fork":
        os._exit(0)  # a forked copy owns nothing to clean up; skipping teardown halves its cost


def analyse_isolated(mode: str, options, job: _Job, timeout: float = PARSE_TIMEOUT_S) -> tuple:
    """``analyse`` in a process of its own: a crash or a hang costs this file a KVP900 only.
    A fix or diff that crashes or outlasts the limit (libcst's native parser, on a file
    CPython parses) leaves the file unfixed and keeps what a lint of it finds, each fix
    marked not applied: the findings a person must act on never vanish into a KVP900."""
    result, answered, exitcode = _run_isolated(mode, options, job, timeout)
    if result is not None:
        return result
    how = f"{timeout:g} s were not enough" if not answered else _how_it_ended(exitcode)
    if mode != "lint":
        found = _run_isolated("lint", options, job, timeout)[0]
        if found is not None and not found[2]:
            why = f"fix not applied: libcst on this file: {how}"
            rows = [Finding(f.line, f.col, f.code, f.message, False, ((why, DECLINED),))
                    if f.fixes else f for f in found[0]]  # (no fix of libcst's applies here)
            return rows, None, None, found[3], False
    if not answered:  # the limit or the machine's load, not the bytes: never cached
        return (*_crash_findings(job, f"the file was still being parsed after {timeout:g} s",
                                 f"if the machine was busy, set {TIMEOUT_ENV} to more "
                                 f"seconds"), None, False)
    return _crash_findings(job, f"the file {how}")


def _run_isolated(mode: str, options, job: _Job, timeout: float) -> tuple:
    """``(analyse's result or None, whether the child answered, its exit code)``."""
    context = _mp_context()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(sender, mode, options, job),
                            daemon=True)
    child.start()
    sender.close()
    result, answered = None, False
    try:
        answered = receiver.poll(timeout)
        if answered:
            result = receiver.recv()
    except (EOFError, OSError):
        result = None  # the child died before it could answer
    finally:
        receiver.close()
        child.join(None if answered else 0)
        if child.is_alive():
            child.kill()
            child.join()
    return result, answered, child.exitcode


def _how_it_ended(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"crashed the parser ({signal.Signals(-exitcode).name})"
        except ValueError:
            return f"crashed the parser (signal {-exitcode})"
    return f"ended the parser with exit status {exitcode}"


def _crash_findings(job: _Job, reason: str, remedy: Optional[str] = None) -> tuple:
    return [_not_checked(reason, remedy)] if "KVP900" in job.codes else [], None, None
