"""Writing a fixed file back: only if it is unchanged since it was read and writable, in one
rename, keeping mode and owner; a file with hard links is rewritten in place so the links
stay one file. Temp files a killed run left behind are removed by the next run.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import signal
import stat
import time


TMP_PREFIX, TMP_SUFFIX = ".poolguard-", ".tmp"
# The random part of a name tempfile.mkstemp makes (8 of a-z, 0-9, _): only a name of that
# shape is taken for a temp file of ours, never a user's '.poolguard-notes.tmp'.
MKSTEMP_PART = "[a-z0-9_]{8}"
_STRAY_TEMP = re.compile(re.escape(TMP_PREFIX) + MKSTEMP_PART + re.escape(TMP_SUFFIX))
STRAY_AGE_S = 60  # a temp file this old is no concurrent run's: that run was killed
# What stops a run (Ctrl-C, kill, a closed terminal): each ends it like Ctrl-C (commands).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))
READ_CHUNK = 1 << 20  # a file that grows while it is read is read on this much at a time
# The longest source poolguard parses, in characters: Python's syntax tree takes 70-90 bytes
# of memory per character of source (a 20 MB concatenation of SGLang: 1.4 GB for ast.parse,
# 1.9 GB for the whole lint; a 54 MB table: 4.7 GB), so 8 Mi characters cost up to ~0.75 GB
# in one worker. No hand-written module comes near it (SGLang's largest: 282 kB).
MAX_PARSED_CHARS = 8 * 1024 * 1024


def digest_bytes(data: bytes) -> str:
    """The digest of one file's bytes (the cache's content key, the unchanged-file check):
    128 bits of SHA-256, which CPUs of this decade hash in hardware (twice blake2b's speed)."""
    return hashlib.sha256(data).hexdigest()[:32]


# A source's first two lines with their ends (CR, LF or CRLF, as bytes.splitlines splits):
# all that holds an encoding cookie (PEP 263), and all tokenize.detect_encoding reads.
_TWO_LINES = re.compile(rb"(?:[^\r\n]*(?:\r\n|\r|\n|\Z)){1,2}")


def first_two_lines(data: bytes) -> bytes:
    """The first two lines of ``data`` (with their ends), never a copy of the rest."""
    return data[:_TWO_LINES.match(data).end()]


def read_regular_file(path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; OSError otherwise.

    Opened non-blocking, so a FIFO named here cannot hang the run, and checked with ``fstat``
    so a directory, ``/dev/zero`` or a link to a device is never read.
    """
    return read_regular_file_stat(path, limit)[0]


def read_regular_file_stat(path, limit: int) -> tuple:
    """``read_regular_file`` and the file's ``fstat``, taken before the bytes were read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > limit:  # refused unread (a sparse file's size costs nothing to ask)
            raise OSError(errno.EFBIG, f"larger than {limit} bytes")
        # one read of the size fstat gave, plus a byte: that many bytes, and no more, means
        # the file is whole as it was stat'ed (a buffered read of ``limit`` bytes asked the
        # allocator for ``limit`` each time: two thirds of a cold run's reading)
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:  # grown, shrunk or a short read: on to the end
            data = _read_to_end(fd, data, limit)
        return data, st
    finally:
        os.close(fd)


def _read_to_end(fd: int, data: bytes, limit: int) -> bytes:
    chunks, size = [data], len(data)
    while size <= limit:
        chunk = os.read(fd, min(limit + 1 - size, READ_CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes")
    return b"".join(chunks)


class WriteRefused(Exception):
    """The fix was not written; the message says why in one line."""


def _writable(path: str, st: os.stat_result) -> bool:
    """No write bit at all means read-only, even for root (ruff and black refuse it too)."""
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def _check_unchanged(handle_or_path, digest: str) -> bytes:
    """The current bytes, if they are still the ones poolguard read (``digest``)."""
    if isinstance(handle_or_path, str):
        with open(handle_or_path, "rb") as handle:
            current = handle.read()
    else:
        handle_or_path.seek(0)
        current = handle_or_path.read()
    if digest_bytes(current) != digest:
        raise WriteRefused("changed since poolguard read it; not rewritten (run it again)")
    return current


def write_fix(path: str, digest: str, data: bytes) -> None:
    """Replace the content of ``path`` (read with content ``digest``) by ``data``.

    The content is compared with what was read right before the rename, so an edit made
    while the run was going is never overwritten; the window left is the rename itself.
    A file that cannot be written whole (a full disk) is left exactly as it was.
    """
    real = os.path.realpath(path)  # write through a symlink instead of replacing it
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused("not a regular file; not rewritten")
    if not _writable(real, st):
        raise WriteRefused("read-only; not rewritten (make it writable to apply the fix)")
    if st.st_nlink > 1:
        _write_in_place(real, digest, data)
        return
    _check_unchanged(real, digest)
    _replace(real, data, st, before_rename=lambda: _check_unchanged(real, digest))


def write_whole(path: str, data: bytes) -> None:
    """Create or replace ``path`` (a baseline) in one rename: a full disk or a kill leaves
    the old file whole, and a FIFO, device or directory of that name is refused unopened."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise WriteRefused("not a regular file")
    _replace(real, data, st)


def _replace(real: str, data: bytes, st, before_rename=None) -> None:
    """Write ``data`` to a temp file beside ``real`` and rename it over ``real``; the temp
    file takes ``st``'s owner and mode (a new file's mode follows the umask)."""
    import tempfile  # only a run that writes pays for it (and for shutil, which it imports)

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=TMP_PREFIX, suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if st is not None:
            _keep_owner_and_mode(tmp, st)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        if before_rename is not None:
            before_rename()
        os.replace(tmp, real)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def _keep_owner_and_mode(tmp: str, st: os.stat_result) -> None:
    """Owner first (a chown may clear set-id bits), then the mode; an owner we may not give
    (not root, another user's file) stays ours, as with any editor."""
    if hasattr(os, "chown"):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            try:
                os.chown(tmp, -1, st.st_gid)
            except OSError:
                pass
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


def _write_in_place(real: str, digest: str, data: bytes) -> None:
    """A hard-linked file is rewritten through its own inode (not atomic, but one file stays
    one file); the content check and the write share one open handle.

    The blocks a longer fix needs are reserved first (``posix_fallocate`` leaves the bytes
    alone), so a full disk refuses the fix before a byte changes; if writing fails anyway
    the original bytes are put back. A stop signal waits until the file is whole again (old
    or new): Ctrl-C between the write and the truncate left the fix followed by the old
    file's last bytes.
    """
    with open(real, "r+b", buffering=0) as handle, _stop_signals_held():
        original = _check_unchanged(handle, digest)
        fd = handle.fileno()
        if len(data) > len(original) and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:
                os.ftruncate(fd, len(original))  # undo a size change of a partial reservation
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # FS cannot reserve
                    raise
        try:
            _pwrite_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except OSError:
            _pwrite_all(fd, original)  # fits: these bytes had their blocks before
            os.ftruncate(fd, len(original))
            raise


@contextlib.contextmanager
def _stop_signals_held():
    """A stop signal that comes inside the block is noted, not acted on, and raised again as
    soon as the block ends (so it stops the run then). Python runs handlers in the main thread
    whichever thread the kernel hands a signal to, so it is the handlers that wait (a
    thread's signal mask would not hold a signal another thread takes); outside the main
    thread, where no handler can be set, the block runs as it is."""
    noted: list = []
    try:
        kept = {stop: signal.signal(stop, lambda signum, frame: noted.append(signum))
                for stop in STOP_SIGNALS}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for stop, handler in kept.items():
            if handler is not None:  # None: a handler not set from Python, left as it is
                signal.signal(stop, handler)
        if noted:
            signal.raise_signal(noted[0])


def _pwrite_all(fd: int, data: bytes) -> None:
    view, offset = memoryview(data), 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)


def is_stray_temp(name: str) -> bool:
    return _STRAY_TEMP.fullmatch(name) is not None


def remove_stray_temp(entry: os.DirEntry, now: float | None = None) -> None:
    """Delete a ``.poolguard-*.tmp`` a killed ``--fix`` left, once it is old enough to be no
    concurrent run's; errors are ignored (it is only litter)."""
    try:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and (now or time.time()) - st.st_mtime >= STRAY_AGE_S:
            os.unlink(entry.path)
    except OSError:
        pass


def package_root(paths: list) -> str:
    """The folder the modules of a run of absolute ``paths`` are named from (``_package_root``
    of their common folder); "" for none. ``__init__.py`` files above the run decide it: a
    result keyed by the run's files alone must be keyed by it too (``runner._tree_stamp``)."""
    return _package_root(os.path.commonpath({os.path.dirname(p) for p in paths})) if (
        paths) else ""


def _package_root(folder: str) -> str:
    """The folder module names count from: above every enclosing package (a folder with an
    ``__init__.py``), so a run on ``pkg/`` itself names its modules ``pkg.x`` as imports do."""
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder
