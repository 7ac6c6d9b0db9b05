"""Content-hash result cache for ``poolguard lint``: warm re-runs skip the parse entirely.

One JSON file per run configuration, loaded once and written once. Its name is a fingerprint
of everything that can change a result besides the file itself: the tool version, the source
of the lint package (so an edited rule never serves stale findings), the enabled codes, the
rule options and the per-file ignores. Inside, findings are keyed by content only: the
digest of the file's bytes plus the codes enabled for its path; equal files share one
entry.

Which digest a path has is remembered too, with the file's stat (device, inode, size, mtime
and ctime, in ns): a file whose stat is unchanged is not read again. ctime is the part no
tool can set back: ``cp -p`` and ``touch -r`` restore mtime but change ctime, ``rsync -a``
and ``mv`` bring another inode, so a file swapped behind an equal size and mtime is read and
hashed afresh. A stat is remembered only when the file was last changed ``RACY_NS`` before
the run that read it started, so a second write within the filesystem's timestamp tick
cannot hide behind an unchanged stat (git's "racy clean" problem).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Optional

import lint_rules
from lint_rules.files import MKSTEMP_PART, STRAY_AGE_S, read_regular_file

FORMAT_VERSION = 2  # "stats" (optional) came later: files without it still read
KEEP_FILES = 8  # cache files of other configurations (or older rule sources) kept around
MAX_ENTRIES = 100_000  # contents remembered per configuration, most recently used kept
REFRESH_NS = 3600 * 10**9  # a hit re-stamps its entry (for MAX_ENTRIES) at most hourly
MAX_CACHE_BYTES = 256 * 1024 * 1024  # far above any real tree; a bigger file is not ours
RACY_NS = 2 * 10**9  # a stat this recent is not trusted: 2 s covers FAT's and HFS+'s ticks
MAX_CODES_BYTES = 64 * 1024
# ``deps`` keys that are no path: what the analysis asked the run's file list and class graph
# (``?kind:argument`` -> the answer), so a cached result is checked against a tree that has
# changed anywhere, not only in the files it read (``package.PackageIndex.answers_hold``).
ASKED = "?"
TREE_KEY = ASKED + "tree"  # the whole run's (path, digest) stamp: equal means nothing changed
SELF_KEY = ASKED + "self"  # the file the result is of (one content may sit at two paths)


def content_key(digest: str, codes) -> str:
    """What a cached result answers for: these bytes linted with these codes."""
    return f"{digest}:{_listed(frozenset(codes))}"


@functools.lru_cache(maxsize=64)  # a run has one code set per per-file-ignores pattern
def _listed(codes: frozenset) -> str:
    return ",".join(sorted(codes))


def cache_dir() -> Optional[Path]:
    """``$POOLGUARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/sglang-poolguard``, else ``~/.cache/…``;
    None (no cache) for a user with no home (no ``$HOME``, no passwd entry: a container's uid)."""
    explicit = os.environ.get("POOLGUARD_CACHE_DIR", "")
    if explicit.strip():  # (blank, as 'POOLGUARD_CACHE_DIR= ' in an env file: unset, not ' ')
        try:  # a quoted '~/...' (an env file, a unit file: no shell expanded it)
            return Path(explicit).expanduser()
        except RuntimeError:  # '~' of a user with no home: no cache, never a folder named '~'
            return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid, ignore it
        try:  # (else it would land in the linted tree)
            base = os.path.join(Path.home(), ".cache")
        except RuntimeError:
            return None
    return Path(base) / "sglang-poolguard"


def not_a_folder(folder: Path) -> Optional[str]:
    """Why ``folder`` can never hold the cache: it, or the nearest path above it that exists,
    is no folder (a regular file, a dangling link). None when it is, or may be made, one."""
    for path in (folder, *folder.parents):
        if os.path.isdir(path):
            return None
        if os.path.lexists(path):
            return f"{path} is not a directory"
    return None


# The first cache write this process could not make ("folder: why"): the CLI says it once.
_unwritten: list = []


def not_written(path: Path, exc: OSError) -> None:
    """Note that writing the cache file ``path`` failed with ``exc`` (the first failure kept)."""
    if not _unwritten:  # the folder's fault, unless a folder (FIFO...) holds the file's name
        taken = os.path.lexists(path) and not os.path.isfile(path)
        _unwritten.append(f"{path if taken else path.parent}: {exc.strerror or exc}")


def write_failure() -> Optional[str]:
    """Why a cache write of this process failed (its folder and the system's reason), or None:
    a read-only or full cache folder leaves the run without a cache, never without a word."""
    return _unwritten[0] if _unwritten else None


def cache_file(name: str) -> Optional[Path]:
    """``name`` in ``cache_dir()``, or None when there is no cache directory."""
    directory = cache_dir()
    return directory / name if directory is not None else None


@functools.lru_cache(maxsize=None)  # the rules this process imported cannot change under it
def _package_digest() -> str:
    """Digest of the lint package's own sources: a changed rule invalidates every entry."""
    package_dir = Path(lint_rules.__file__).parent
    hasher = hashlib.blake2b(digest_size=16)
    for path in sorted(package_dir.rglob("*.py")):
        hasher.update(str(path.relative_to(package_dir)).encode())
        try:
            hasher.update(path.read_bytes())
        except OSError:
            hasher.update(b"?")
    return hasher.hexdigest()


@functools.lru_cache(maxsize=None)
def _flake8_digest() -> str:
    """Digest of the flake8 sources a result's noqa answers come from (``flake8.defaults``'
    regexes, ``flake8.utils``' split of a code list), found without importing flake8 (a warm
    run never does): a flake8 that reads ``# noqa`` otherwise gets results afresh."""
    from importlib.util import find_spec

    hasher = hashlib.blake2b(digest_size=16)
    try:
        folder = Path(find_spec("flake8").origin).parent
        for name in ("defaults.py", "utils.py"):
            hasher.update((folder / name).read_bytes())
    except (ImportError, AttributeError, TypeError, ValueError, OSError):
        return "?"  # no flake8 to read: the lint could not run either
    return hasher.hexdigest()


@functools.lru_cache(maxsize=None)  # package metadata is read once (each lookup scans sys.path)
def tool_version() -> str:
    try:
        from importlib.metadata import version

        return version("sglang-poolguard")
    except Exception:  # not installed (running from a checkout): the source digest still keys it
        return "0+unknown"


def fingerprint(codes, options, per_file_ignores, disable_noqa: bool = False) -> str:
    """One key for everything besides the file that determines its findings: the lint
    package's sources (the distribution's version adds nothing to them; reading it costs a
    warm run a tenth of its time), the Python that parses (a newer one accepts more) and the
    flake8 whose noqa regexes the results applied."""
    material = repr((
        FORMAT_VERSION, sys.version, _package_digest(), _flake8_digest(), sorted(codes),
        options, per_file_ignores, disable_noqa,
    ))
    return hashlib.blake2b(material.encode(), digest_size=12).hexdigest()


def rule_codes(use_cache: bool) -> tuple:
    """``(ALL_CODES, DEFAULT_CODES)`` of the rule registry (``lint_rules.rules``). Importing the
    rules is most of a warm run's start-up, so the pair is kept in the cache under the digest of
    the sources it was derived from: the same sources give the same pair. A file that does not
    hold two lists of codes, the defaults among the known, is not used (and is replaced)."""
    path = cache_file(f"codes-{_package_digest()}.json")
    use_cache = use_cache and path is not None
    if use_cache:
        try:
            known, default = json.loads(read_regular_file(path, MAX_CODES_BYTES))
            if _code_lists(known, default):
                return tuple(known), frozenset(default)
        except (OSError, ValueError, TypeError, RecursionError):
            pass  # absent, unreadable or not ours: derived afresh below
    from lint_rules.rules import ALL_CODES, DEFAULT_CODES

    if use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps([list(ALL_CODES), sorted(DEFAULT_CODES)]))
            prune(path.parent, "codes")
        except OSError as exc:
            not_written(path, exc)
    return ALL_CODES, DEFAULT_CODES


def _code_lists(known, default) -> bool:
    """Two lists of distinct codes as the registry spells them (the prefix, three digits),
    the defaults among the known: an edited file naming codes no rule has is not ours."""
    from lint_rules.config import CODE_PREFIX

    spelled = re.compile(re.escape(CODE_PREFIX) + r"[0-9]{3}")
    return (isinstance(known, list) and isinstance(default, list) and bool(known)
            and all(isinstance(code, str) and spelled.fullmatch(code) for code in known + default)
            and len(set(known)) == len(known) and len(set(default)) == len(default)
            and set(default) <= set(known))


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _well_formed_row(row) -> bool:
    """``[line, col, code, message, fixable, [[title, applicability], ...]]``, these types (a
    line from 1 and a column from 0: 'b.py:-5:12' came from a cache file edited or damaged)."""
    return (
        isinstance(row, list) and len(row) == 6 and _is_int(row[0]) and _is_int(row[1])
        and row[0] >= 1 and row[1] >= 0
        and isinstance(row[2], str) and isinstance(row[3], str) and isinstance(row[4], bool)
        and isinstance(row[5], list) and all(
            isinstance(fix, list) and len(fix) == 2 and all(isinstance(x, str) for x in fix)
            for fix in row[5])
    )


def _well_formed(entry) -> bool:
    """``[last used (ns), [finding row, ...]]`` (rows: ``_well_formed_row``), optionally with
    ``{path: digest or null}`` of the other modules the package-wide analysis read."""
    return (
        isinstance(entry, list) and len(entry) in (2, 3) and _is_int(entry[0])
        and isinstance(entry[1], list) and all(_well_formed_row(row) for row in entry[1])
        and (len(entry) == 2 or _well_formed_deps(entry[2]))
    )


def stat_row(st) -> str:
    """What a remembered stat must equal: device, inode, size, mtime and ctime (ns)."""
    return f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def _well_formed_stat(row) -> bool:
    """``[stat_row, digest]``."""
    return isinstance(row, list) and len(row) == 2 and all(isinstance(x, str) for x in row)


def _well_formed_deps(deps) -> bool:
    """``{path: digest or null}`` (a JSON object's keys are always strings)."""
    return isinstance(deps, dict) and all(
        digest is None or isinstance(digest, str) for digest in deps.values())


class ResultCache:
    """Findings keyed by ``content_key``; loaded once, merged into the file once per run."""

    def __init__(self, path: Optional[Path]):
        self.path = path
        self.entries: dict = {}
        self.changed: dict = {}  # entries written by this run, merged into the file on save
        self.checked: set = set()  # keys whose entry is known to be well formed
        self.stats: dict = {}  # absolute path -> [stat_row, digest] (trusted stats only)
        self.changed_stats: dict = {}
        self.started_ns = time.time_ns()
        if path is not None:
            self._load()

    @classmethod
    def for_run(cls, codes, options, per_file_ignores, disable_noqa: bool = False
                ) -> "ResultCache":
        name = f"lint-{fingerprint(codes, options, per_file_ignores, disable_noqa)}.json"
        return cls(cache_file(name))

    @classmethod
    def disabled(cls) -> "ResultCache":
        return cls(None)

    def _load(self) -> None:
        self.entries, self.stats = self._read_entries()

    def _read_entries(self) -> tuple:
        """The stored entries and stats; anything unreadable or odd counts as no cache at all.
        Each entry and stat row is checked when it is used (``_entry``, ``digest_by_stat``):
        a mistyped one answers nothing, and is not written back."""
        try:
            raw = read_regular_file(self.path, MAX_CACHE_BYTES)
        except OSError:
            return {}, {}
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError, MemoryError):
            return {}, {}  # corrupt, or nested deeper than the decoder's stack: start empty
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            return {}, {}
        files, stats = data.get("files"), data.get("stats")
        if not isinstance(files, dict):
            return {}, {}
        if not isinstance(stats, dict):
            stats = {}
        return files, stats

    def digest_by_stat(self, full: str, st) -> Optional[str]:
        """The digest of ``full``'s bytes when its stat is the one remembered with it."""
        row = self.stats.get(full)
        if row is None or not _well_formed_stat(row) or row[0] != stat_row(st):
            return None
        return row[1]

    def remember_stat(self, full: str, st, digest: str) -> None:
        """Remember that ``full`` with stat ``st`` (taken before its bytes were read) holds
        ``digest``, unless it changed too recently to be told from a later write by stat."""
        if self.path is None or os.name != "posix" or max(st.st_mtime_ns, st.st_ctime_ns) >= (
                self.started_ns - RACY_NS):  # Windows' ctime is the creation time: no proof
            return
        row = [stat_row(st), digest]
        if self.stats.get(full) != row:
            self.stats[full] = self.changed_stats[full] = row

    def _entry(self, key: str) -> Optional[list]:
        """The entry of ``key`` if it is well formed (checked once per run)."""
        entry = self.entries.get(key)
        if entry is None or key in self.checked:
            return entry
        if not _well_formed(entry):
            del self.entries[key]
            return None
        self.checked.add(key)
        return entry

    def findings_of(self, key: str) -> Optional[list]:
        """Cached findings for a ``content_key``, or None when this content was never seen."""
        entry = self._entry(key)
        return entry[1] if entry else None

    def deps_of(self, key: str) -> dict:
        """The package modules (path -> digest, None: absent) a cached result depended on."""
        entry = self._entry(key)
        return entry[2] if entry and len(entry) == 3 else {}

    def store(self, key: str, findings: list, deps: Optional[dict] = None) -> None:
        """Record (or refresh) the findings of one ``content_key`` (and what they depend on)."""
        if self.path is None:
            return
        known = self._entry(key)
        if known and known[1] == findings and self.started_ns - known[0] < REFRESH_NS and (
                (known[2] if len(known) == 3 else {}) == (deps or {})):
            return  # a warm run that changes nothing writes nothing
        entry = [self.started_ns, findings] + ([deps] if deps else [])
        self.entries[key] = self.changed[key] = entry
        self.checked.add(key)

    def save(self) -> None:
        """Write the cache atomically once per run; a read-only home means no cache (said
        once: ``write_failure``)."""
        if self.path is None or not (self.changed or self.changed_stats):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # re-read and merge: pre-commit runs several batches of files at once, and each
            # must keep what the others stored meanwhile
            merged, stats = self._read_entries()
            merged = {key: entry for key, entry in merged.items() if _well_formed(entry)}
            stats = {path: row for path, row in stats.items() if _well_formed_stat(row)}
            merged.update(self.changed)
            if len(merged) > MAX_ENTRIES:
                newest = sorted(merged.items(), key=lambda item: item[1][0])[-MAX_ENTRIES:]
                merged = dict(newest)
            stats.update(self.changed_stats)
            if len(stats) > MAX_ENTRIES:  # no use stamps: keep what this run remembered
                stats = self.changed_stats
            write_atomically(self.path, json.dumps(
                {"format": FORMAT_VERSION, "files": merged, "stats": stats}))
            prune(self.path.parent, "lint")
        except OSError as exc:
            not_written(self.path, exc)


def prune(folder: Path, kind: str) -> None:
    """Drop all but the most recently written cache files of ``kind`` (each edit of a rule
    makes one), and temp files a kill left. Only names this cache writes are touched: the
    folder may be one the user shares with other files ($POOLGUARD_CACHE_DIR=~/.cache, a
    project folder), and their lint-report.json is theirs."""
    def written(path: Path) -> float:
        try:
            return path.lstat().st_mtime
        except OSError:
            return 0.0

    others = sorted((path for path in folder.glob(f"{kind}-*.json")
                     if _CACHE_NAME.fullmatch(path.name)), key=written)
    for stale in others[:-KEEP_FILES]:
        try:
            stale.unlink()
        except OSError:
            pass
    for entry in folder.glob(".*-*.tmp"):  # of a write a kill stopped before its rename
        try:
            st = entry.lstat()
            if (_TEMP_NAME.fullmatch(entry.name) and stat.S_ISREG(st.st_mode)
                    and time.time() - st.st_mtime >= STRAY_AGE_S):
                entry.unlink()
        except OSError:
            pass


CACHE_KINDS = ("lint", "codes", "index")  # the cache files: <kind>-<key>.json
_KIND = "|".join(CACHE_KINDS)
_CACHE_NAME = re.compile(rf"(?:{_KIND})-[0-9a-f]{{24,}}\.json")  # the key: a hex digest
_TEMP_NAME = re.compile(rf"\.(?:{_KIND})-{MKSTEMP_PART}\.tmp")  # write_atomically's mkstemp


def write_atomically(path: Path, text: str) -> None:
    """Replace the cache file ``path`` by ``text`` in one rename; a write that fails (a full
    disk) leaves neither a half file nor its temp file behind."""
    import tempfile  # only a run that writes pays for it (and for shutil, which it imports)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem.split('-')[0]}-",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
