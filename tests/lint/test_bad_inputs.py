"""Hostile caches and file names (issue 10, items 3 and 5): never trusted, never fatal, never
a hang; every output format stays valid when a file name is not UTF-8."""
from __future__ import annotations

import json
import os
import sys

import pytest
from clirun import STALE, json_rows, poolguard, write


def _cached_tree(tmp_path, files: int = 2):
    sources = {f"m{i}.py": STALE.replace("swa_pool", f"pool_{i}") for i in range(files)}
    tree = write(tmp_path / "tree", sources)
    cache = tmp_path / "cache"
    cold = poolguard("lint", "--isolated", "--format", "json", cwd=tree, cache_dir=cache,
                     expect=1)
    (cache_file,) = cache.glob("lint-*.json")
    return tree, cache, cache_file, json_rows(cold.stdout)


def _entries(cache_file):
    return json.loads(cache_file.read_text())["files"]


WRONG_TYPES = [
    lambda e: [e[0], [["3", 4, "KVP001", "m", False, []]]],   # line is a string
    lambda e: [e[0], [[3, 4, "KVP001", "m", "yes", []]]],     # fixable not a bool
    lambda e: [e[0], [[3, 4, "KVP001", "m", False, [["t"]]]]],  # a fix not a pair
    lambda e: [e[0], {"rows": []}],                       # rows not a list
    lambda e: [e[0], [[3, 4, None, "m", False, []]]],         # code not a string
    lambda e: [True, e[1]],                               # last-used stamp a bool
    lambda e: ["soon", e[1]],                             # last-used stamp a string
    lambda e: [e[0], e[1], "extra"],                      # too long
]


def test_wrong_typed_cache_rows_are_ignored_and_rewritten(tmp_path):
    """One file per kind of mistyped entry, all in one cache file."""
    tree, cache, cache_file, cold = _cached_tree(tmp_path, files=len(WRONG_TYPES))
    entries = _entries(cache_file)
    mangled = {path: mangle(entries[path]) for path, mangle in zip(sorted(entries), WRONG_TYPES)}
    cache_file.write_text(json.dumps({"format": 2, "files": mangled}))
    for _ in range(2):  # ignored, then rewritten: the next run is clean too
        warm = poolguard("lint", "--isolated", "--format", "json", cwd=tree, cache_dir=cache,
                         expect=1)
        assert json_rows(warm.stdout) == cold
    rewritten = _entries(cache_file)
    assert set(rewritten) == set(entries)
    assert all(isinstance(row[0], int) for entry in rewritten.values() for row in entry[1])


def test_a_deeply_nested_cache_file_is_ignored_and_rewritten(tmp_path):
    tree, cache, cache_file, cold = _cached_tree(tmp_path)
    cache_file.write_text("[" * 200_000 + "]" * 200_000)
    warm = poolguard("lint", "--isolated", "--format", "json", cwd=tree, cache_dir=cache,
                     expect=1)
    assert json_rows(warm.stdout) == cold
    assert len(_entries(cache_file)) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link"])
def test_a_fifo_or_device_as_cache_file_neither_hangs_nor_is_read(tmp_path, kind):
    tree, cache, cache_file, cold = _cached_tree(tmp_path)
    cache_file.unlink()
    if kind == "fifo":
        os.mkfifo(cache_file)
    else:
        cache_file.symlink_to("/dev/zero")
    warm = poolguard("lint", "--isolated", "--format", "json", cwd=tree, cache_dir=cache,
                     expect=1, timeout=120)
    assert json_rows(warm.stdout) == cold
    assert cache_file.is_file() and not cache_file.is_symlink()  # replaced by a real cache
    assert len(_entries(cache_file)) == 2


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems require UTF-8 names")
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_file_name_that_is_not_utf8_in_every_format(tmp_path, fmt):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / os.fsdecode(b"bad\xff.py")).write_text(STALE)
    (tree / "ok.py").write_text(STALE)
    done = poolguard("lint", "--isolated", "--format", fmt, ".", cwd=tree, expect=1, text=False)
    out = done.stdout
    if fmt == "text":  # raw bytes back, as ls prints them
        assert out.count(b"\n") == 2 and out.startswith(b"bad\xff.py:3:")
        return
    text = out.decode("utf-8")  # strictly valid UTF-8: no lone surrogates
    if fmt == "json":
        assert sorted(row["path"] for row in json.loads(text)) == ["bad\ufffd.py", "ok.py"]
    elif fmt == "sarif":
        uris = sorted(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                      for result in json.loads(text)["runs"][0]["results"])
        assert uris == ["bad%FF.py", "ok.py"]  # RFC 3986: the exact bytes, percent-encoded
    else:
        assert text.count("::error file=") == 2 and "file=bad\ufffd.py" in text


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
@pytest.mark.parametrize("flag", ["--config", "--baseline", "--write-baseline"])
def test_a_name_that_is_not_utf8_in_an_error_is_its_octal_bytes(tmp_path, flag):
    """A config or baseline named with a byte that is no UTF-8 (it reaches Python as a lone
    surrogate) is named in the error as git quotes it, byte by byte in octal."""
    tree = write(tmp_path / "tree", {"m.py": STALE})
    missing = os.fsdecode(os.fsencode(str(tmp_path / "gone")) + b"/b\xff.json")
    done = poolguard("lint", "--isolated" if flag != "--config" else "--no-cache", flag,
                     missing, ".", cwd=tree, expect=2, text=False)
    assert b"b\\377.json" in done.stderr, done.stderr
