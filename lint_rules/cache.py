"""Content-hash result cache for ``poolguard lint``: warm re-runs skip the parse entirely.

One JSON file per run configuration, loaded once and written once. Its name is a fingerprint
of everything that can change a result besides the file itself: the tool version, the source
of the lint package (so an edited rule never serves stale findings), the enabled codes, the
rule options and the per-file ignores. Inside, each absolute path maps to the blake2b digest
of the file's bytes and its findings. A file whose (mtime_ns, size) match a *trusted* entry is
not even read; otherwise it is read and hashed, and a matching digest still skips the lint.
An entry's stat is only trusted when the file was last modified well before the run that
stored it started, so a same-size edit within the filesystem's timestamp granularity cannot
hide behind an unchanged mtime (git's "racy clean" problem).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Optional

import lint_rules

FORMAT_VERSION = 1
RACY_WINDOW_NS = 2_000_000_000  # 2 s covers FAT's and HFS+'s coarse mtimes
KEEP_FILES = 8  # cache files of other configurations (or older rule sources) kept around
MAX_CACHE_BYTES = 256 * 1024 * 1024  # far above any real tree; a bigger file is not ours


def digest_bytes(data: bytes) -> str:
    """The content key of one file."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def cache_dir() -> Path:
    """``$POOLGUARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/sglang-poolguard``, else ``~/.cache/…``."""
    explicit = os.environ.get("POOLGUARD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "sglang-poolguard"


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


def tool_version() -> str:
    try:
        from importlib.metadata import version

        return version("sglang-poolguard")
    except Exception:  # not installed (running from a checkout): the source digest still keys it
        return "0+unknown"


def fingerprint(codes, options, per_file_ignores) -> str:
    """One key for everything besides the file that determines its findings."""
    material = repr((
        FORMAT_VERSION, tool_version(), _package_digest(), sorted(codes), options,
        per_file_ignores,
    ))
    return hashlib.blake2b(material.encode(), digest_size=12).hexdigest()


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _well_formed_row(row) -> bool:
    """``[line, col, code, message, fixable]`` with exactly these types."""
    return (
        isinstance(row, list) and len(row) == 5 and _is_int(row[0]) and _is_int(row[1])
        and isinstance(row[2], str) and isinstance(row[3], str) and isinstance(row[4], bool)
    )


def _well_formed(entry) -> bool:
    """``[mtime_ns|None, size, digest, [[line, col, code, message, fixable], ...]]``."""
    return (
        isinstance(entry, list) and len(entry) == 4
        and (entry[0] is None or _is_int(entry[0])) and _is_int(entry[1])
        and isinstance(entry[2], str) and isinstance(entry[3], list)
        and all(_well_formed_row(row) for row in entry[3])
    )


def _read_regular_file(path: Path, limit: int) -> Optional[bytes]:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes, else None.

    Opened non-blocking so a FIFO planted as the cache file cannot hang the run, and checked
    with ``fstat`` so a link to ``/dev/zero`` or a device is never read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


class ResultCache:
    """Findings per absolute path, keyed by content digest (and a trusted stat shortcut)."""

    def __init__(self, path: Optional[Path]):
        self.path = path
        self.entries: dict = {}
        self.changed: dict = {}  # entries written by this run, merged into the file on save
        self.started_ns = time.time_ns()
        if path is not None:
            self._load()

    @classmethod
    def for_run(cls, codes, options, per_file_ignores) -> "ResultCache":
        name = f"lint-{fingerprint(codes, options, per_file_ignores)}.json"
        return cls(cache_dir() / name)

    @classmethod
    def disabled(cls) -> "ResultCache":
        return cls(None)

    def _load(self) -> None:
        self.entries = self._read_entries()

    def _read_entries(self) -> dict:
        """The stored entries; anything unreadable, odd or mistyped counts as no cache at all."""
        raw = _read_regular_file(self.path, MAX_CACHE_BYTES)
        if raw is None:
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError, MemoryError):
            return {}  # corrupt, or nested deeper than the decoder's stack: start empty
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            return {}
        files = data.get("files")
        if not isinstance(files, dict):
            return {}
        return {key: value for key, value in files.items() if _well_formed(value)}

    def by_stat(self, path: str, mtime_ns: int, size: int) -> Optional[list]:
        """Cached findings when the stat matches a trusted entry, without reading the file."""
        entry = self.entries.get(path)
        if entry and entry[0] is not None and entry[0] == mtime_ns and entry[1] == size:
            return entry[3]
        return None

    def digest_of(self, path: str) -> Optional[str]:
        """The stored content digest for ``path`` (a worker compares it before linting)."""
        entry = self.entries.get(path)
        return entry[2] if entry else None

    def findings_of(self, path: str) -> Optional[list]:
        entry = self.entries.get(path)
        return entry[3] if entry else None

    def store(self, path: str, mtime_ns: int, size: int, digest: str, findings: list) -> None:
        """Record findings for ``path``; its stat is kept only if the file is not racy."""
        if self.path is None:
            return
        trusted = mtime_ns if mtime_ns < self.started_ns - RACY_WINDOW_NS else None
        entry = [trusted, size, digest, findings]
        if self.entries.get(path) != entry:
            self.entries[path] = self.changed[path] = entry

    def save(self) -> None:
        """Write the cache atomically once per run; a read-only home just means no cache."""
        if self.path is None or not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # re-read and merge: pre-commit runs several batches of files at once, and each
            # must keep what the others stored meanwhile
            merged = self._read_entries()
            merged.update(self.changed)
            payload = json.dumps({"format": FORMAT_VERSION, "files": merged})
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".lint-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(payload)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
            self._prune()
        except OSError:
            pass

    def _prune(self) -> None:
        """Drop all but the most recently written cache files (each edit of a rule makes one)."""
        def written(path: Path) -> float:
            try:
                return path.lstat().st_mtime
            except OSError:
                return 0.0

        others = sorted(self.path.parent.glob("lint-*.json"), key=written)
        for stale in others[:-KEEP_FILES]:
            try:
                stale.unlink()
            except OSError:
                pass
