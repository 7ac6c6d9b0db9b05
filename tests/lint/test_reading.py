"""The main process's reading of a run's files (``files.read_regular_file_stat``): whole, and
bounded, whatever ``fstat`` said of the file's size."""
from __future__ import annotations

import os

import pytest

from lint_rules.files import read_regular_file, read_regular_file_stat

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
