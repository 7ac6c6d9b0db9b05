"""Writing a fixed file back: only if it is unchanged since it was read and writable, in one
rename, keeping mode and owner; a file with hard links is rewritten in place so the links
stay one file. Temp files a killed run left behind are removed by the next run.
"""
from __future__ import annotations

import fnmatch
import os
import stat
import tempfile
import time

from lint_rules.cache import digest_bytes

TMP_PREFIX, TMP_SUFFIX = ".poolguard-", ".tmp"
TMP_PATTERN = f"{TMP_PREFIX}*{TMP_SUFFIX}"
STRAY_AGE_S = 60  # a temp file this old is no concurrent run's: that run was killed


class WriteRefused(Exception):
    """The fix was not written; the message says why in one line."""


def _writable(path: str, st: os.stat_result) -> bool:
    """No write bit at all means read-only, even for root (ruff and black refuse it too)."""
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def _check_unchanged(handle_or_path, digest: str) -> None:
    if isinstance(handle_or_path, str):
        with open(handle_or_path, "rb") as handle:
            current = handle.read()
    else:
        handle_or_path.seek(0)
        current = handle_or_path.read()
    if digest_bytes(current) != digest:
        raise WriteRefused("changed since poolguard read it; not rewritten (run it again)")


def write_fix(path: str, digest: str, data: bytes) -> None:
    """Replace the content of ``path`` (read with content ``digest``) by ``data``.

    The content is compared with what was read right before the rename, so an edit made
    while the run was going is never overwritten; the window left is the rename itself.
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
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=TMP_PREFIX, suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _keep_owner_and_mode(tmp, st)
        _check_unchanged(real, digest)
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
    one file); the content check and the write share one open handle."""
    with open(real, "r+b") as handle:
        _check_unchanged(handle, digest)
        handle.seek(0)
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def is_stray_temp(name: str) -> bool:
    return fnmatch.fnmatchcase(name, TMP_PATTERN)


def remove_stray_temp(entry: os.DirEntry, now: float | None = None) -> None:
    """Delete a ``.poolguard-*.tmp`` a killed ``--fix`` left, once it is old enough to be no
    concurrent run's; errors are ignored (it is only litter)."""
    try:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and (now or time.time()) - st.st_mtime >= STRAY_AGE_S:
            os.unlink(entry.path)
    except OSError:
        pass
