"""The main process's reading of a run's files: whole, and bounded, whatever ``fstat`` said of
the file's size (``files.read_regular_file_stat``); the text pre-filter's words found as in
the lowered text (``rules._vocab``); the encoding read from the first two lines."""
from __future__ import annotations

import os
import random
import re
import sys
import tokenize

import pytest

from lint_rules.files import first_two_lines, read_regular_file, read_regular_file_stat
from lint_rules.rules._vocab import LOWERS_TO_ASCII, SWA_WORDS, _names_swa_word

PROC_FILE = "/proc/self/status"  # a regular file that stats as empty and reads as lines


def test_a_file_is_read_whole_with_the_stat_taken_before(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n" * 1000)
    data, st = read_regular_file_stat(str(path), 1 << 20)
    assert data == path.read_bytes() and st.st_size == len(data)
    with pytest.raises(OSError, match="larger than 5999 bytes"):
        read_regular_file(str(path), 5999)
    assert read_regular_file(str(path), 6000) == data


@pytest.mark.skipif(not os.path.exists(PROC_FILE), reason="Linux /proc")
def test_a_file_longer_than_its_stat_is_read_to_its_end():
    # the first read finds more than fstat promised (size 0): reading goes on to the end
    data, st = read_regular_file_stat(PROC_FILE, 1 << 20)
    assert st.st_size == 0 and data.startswith(b"Name:") and data.endswith(b"\n")
    assert data.count(b"\n") > 10
    with pytest.raises(OSError, match="larger than 20 bytes"):
        read_regular_file(PROC_FILE, 20)


def test_the_characters_that_lower_into_ascii_are_the_known_ones():
    # _names_swa_word may lower a text's UTF-8 bytes instead of the text only while no
    # character beyond ASCII lowers into an ASCII letter: every code point, checked
    found = tuple(chr(code) for code in range(0x80, sys.maxunicode + 1)
                  if any(ord(char) < 0x80 for char in chr(code).lower()))
    assert found == LOWERS_TO_ASCII


def test_the_swa_words_are_found_as_a_lowered_text_holds_them():
    random.seed(13)
    pieces = [*SWA_WORDS, *(w.upper() for w in SWA_WORDS), "SwA", "s", "w", "a", "sliDIN",
              "G", "é", "ß", "ſ", "\u0130", "\u212a", "\u03a3", "\ud800", " ", "\n", "x", "_"]
    for _ in range(20000):
        text = "".join(random.choice(pieces) for _ in range(random.randint(0, 8)))
        lowered = text.lower()
        assert _names_swa_word(text) == any(w in lowered for w in SWA_WORDS), repr(text)


def _encoding(lines: list) -> str:
    try:
        return tokenize.detect_encoding(iter(lines).__next__)[0]
    except SyntaxError as exc:  # a bad cookie or BOM: the same refusal either way
        return str(exc)


def test_the_first_two_lines_are_all_an_encoding_is_read_from():
    # the cookie test (runner._decode) and the index's decoding (PackageIndex._text) read
    # files.first_two_lines, never a split of the whole file
    random.seed(7)
    pieces = [b"# -*- coding: latin-1 -*-", b"#coding=utf-8", b"# vim: fileencoding=cp1252",
              b"# coding: nope", b"\r", b"\n", b"\r\n", b"x = 1", b"\xef\xbb\xbf", b"#", b" ",
              b"coding", b"\xe9", b"\f"]
    for _ in range(20000):
        data = b"".join(random.choice(pieces) for _ in range(random.randint(0, 7)))
        head, lines = first_two_lines(data), data.splitlines(True)
        assert data.startswith(head) and head.splitlines(True) == lines[:2], data
        assert _encoding(head.splitlines(True)) == _encoding(lines), data
        # the cookie's place as the whole file split at its first two line ends gave it
        before = b"\n".join(re.split(rb"\r\n|\r|\n", data, maxsplit=2)[:2])
        assert (b"coding" in head) == (b"coding" in before), data
