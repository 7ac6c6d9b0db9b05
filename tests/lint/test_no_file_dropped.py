"""A file is either analysed or reported, never dropped (issue 16, class 1).

Every file below would hold a KVP001 at a known line if it were analysed; a file poolguard
cannot analyse must instead be one KVP900 saying why, or one error line (exit 2) when it
cannot even be read. One CLI run covers every form: syntax newer than the running Python
(libcst accepts what ``ast`` rejects), encodings, undecodable bytes, NUL bytes, odd newlines,
directories named ``*.py``, dangling links and FIFOs.
"""
from __future__ import annotations

import codecs
import json
import os
import sys

import pytest
from clirun import STALE, poolguard, write

STALE_LINE = 3  # clirun.STALE flags its third line
NEWER = "" if sys.version_info >= (3, 12) else "3.11 rejects it"

# name -> (content, what must come out: "KVP001" at a line, or "KVP900")
ANALYSED = {
    "latin1.py": (b"# -*- coding: latin-1 -*-\n" + b"# caf\xe9\n" + STALE.encode(), 5),
    "bom.py": (codecs.BOM_UTF8 + STALE.encode(), STALE_LINE),
    "cr_only.py": (STALE.replace("\n", "\r").encode(), STALE_LINE),
    "crlf.py": (STALE.replace("\n", "\r\n").encode(), STALE_LINE),
    "form_feed.py": (b"\x0c\n" + STALE.encode(), STALE_LINE + 1),
    "dir.py/inner.py": (STALE.encode(), STALE_LINE),
    "unicode_sep.py": ("# a\u2028b \u0085 c\n".encode() + STALE.encode(), STALE_LINE + 1),
    "big.py": (STALE.encode() + b"x = 1\n" * 200_000, STALE_LINE),
}
UNPARSABLE = {
    "pep695_alias.py": "type Pool = int\n" + STALE,
    "pep695_def.py": "def pick[T](x: T) -> T:\n    return x\n" + STALE,
    "pep695_class.py": "class Box[T]:\n    pass\n" + STALE,
    "pep701_quotes.py": 'name = f"{"swa"}"\n' + STALE,
    "pep701_backslash.py": 'name = f"{"\\n".join([])}"\n' + STALE,
    "syntax_error.py": STALE + "        x = (\n",
    "tabs.py": STALE + "\tif x:\n        pass\n",
}
BROKEN_BYTES = {
    "undecodable.py": STALE.encode() + b"# \xff\xfe\n",
    "nul.py": STALE.encode() + b"x = 1\x00\n",
    "unknown_cookie.py": b"# coding: no-such-codec\n" + STALE.encode(),
    "text_codec_cookie.py": b"# coding: rot13\n" + STALE.encode(),
    "bom_and_latin1.py": codecs.BOM_UTF8 + b"# coding: latin-1\n" + STALE.encode(),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    write(root, {name: content for name, (content, _) in ANALYSED.items()})
    write(root, UNPARSABLE)
    write(root, BROKEN_BYTES)
    os.symlink("missing.py", root / "dangling.py")
    os.mkfifo(root / "fifo.py")
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=root,
                     expect=2)
    rows = json.loads(done.stdout)
    return {(row["path"], row["code"]): row for row in rows}, done.stderr


@pytest.mark.parametrize("name", sorted(ANALYSED))
def test_file_is_analysed(report, name):
    rows, _ = report
    assert rows[(name, "KVP001")]["line"] == ANALYSED[name][1]


@pytest.mark.parametrize("name", sorted(UNPARSABLE))
def test_unparsable_file_is_one_kvp900(report, name):
    rows, _ = report
    assert (name, "KVP900") in rows, (name, sorted(rows))
    assert (name, "KVP001") not in rows
    assert [key for key in rows if key[0] == name] == [(name, "KVP900")]


@pytest.mark.skipif(not NEWER, reason="this Python parses PEP 695/701 syntax")
def test_newer_syntax_says_so(report):
    rows, _ = report
    message = rows[("pep695_alias.py", "KVP900")]["message"]
    assert "libcst reads newer syntax" in message and "run poolguard under a Python" in message


@pytest.mark.parametrize("name", sorted(BROKEN_BYTES))
def test_undecodable_or_nul_is_one_kvp900(report, name):
    rows, _ = report
    assert [key for key in rows if key[0] == name] == [(name, "KVP900")]


def test_unreadable_entries_are_error_lines(report):
    _, stderr = report
    assert "dangling.py: broken symbolic link, not checked" in stderr
    assert "fifo.py: not a regular file, not checked" in stderr


def test_permission_error_is_an_error_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads a mode-000 file")
    write(tmp_path, {"secret.py": STALE})
    (tmp_path / "secret.py").chmod(0)
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=tmp_path, expect=2)
    assert "secret.py: Permission denied" in done.stderr
