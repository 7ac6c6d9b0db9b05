"""A twelfth hostile round on the CLI and the flake8 plugin (attack12): what attack11 left
open, then odd paths, config values, baselines, caches and streams, through the real
``poolguard`` subprocess (and the real flake8) on real files."""
from __future__ import annotations

import codecs
import json
import subprocess
import sys

import pytest
from clirun import STALE, poolguard, write
from samples import GATED

FIXED = GATED.replace("if self.use_sliding_window_kv_pool:", "if self._swa_kv_pool is not None:")


@pytest.mark.parametrize("name", [".", "..", "/", "./", "sub/", "sub/..", "sub"])
@pytest.mark.parametrize("mode", ["--diff", "--fix", "--select=KVP"])
def test_stdin_named_as_a_folder_is_refused(tmp_path, name, mode):
    # '--stdin-filename . --diff' printed a diff headed '--- a/.' ('a/' for '/', 'a/tmp' for
    # '..'), which no git apply or patch takes, and matched per-file-ignores as no file would
    root = write(tmp_path / "t", {"sub/keep.py": ""})
    with open(write(tmp_path, {"in.py": GATED}) / "in.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", mode, "--stdin-filename", name,
                         "-", cwd=root, expect=2, stdin=source)
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"poolguard: error: --stdin-filename needs a file's name, got the folder {name!r}"]


def test_stdin_named_as_a_file_in_a_folder_still_diffs(tmp_path):
    root = write(tmp_path / "t", {"sub/keep.py": ""})
    with open(write(tmp_path, {"in.py": GATED}) / "in.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--stdin-filename",
                         "sub/new.py", "-", cwd=root, expect=1, stdin=source)
    assert done.stdout.splitlines()[:2] == ["--- a/sub/new.py", "+++ b/sub/new.py"]


def _two_boms(text: str) -> bytes:
    return codecs.BOM_UTF8 * 2 + text.encode()


@pytest.mark.parametrize("head", ["", "# -*- coding: utf-8 -*-\n"], ids=["plain", "cookie"])
def test_a_file_with_two_byte_order_marks_is_kvp900_as_python_refuses_it(tmp_path, head):
    # the runner decoded the BOM away (utf-8-sig) and the engine then dropped a second one as
    # if it were the BOM: a file Python refuses ('invalid non-printable character U+FEFF')
    # was linted and fixed as valid. libcst takes one leading U+FEFF, so the KVP900 also said
    # 'libcst reads newer syntax; run poolguard under a Python that has it': no Python does
    root = write(tmp_path / "t", {"two.py": _two_boms(head + GATED), "b.py": STALE,
                                  "one.py": codecs.BOM_UTF8 + (head + GATED).encode()})
    python = subprocess.run([sys.executable, "two.py"], cwd=root, capture_output=True,
                            text=True, timeout=60)
    assert "invalid non-printable character U+FEFF" in python.stderr
    line = 1 + head.count("\n")
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=root,
                     expect=1)
    rows = json.loads(done.stdout)
    assert sorted((r["path"], r["line"], r["code"]) for r in rows) == [
        ("b.py", 3, "KVP001"), ("one.py", 6 + line - 1, "KVP003"), ("two.py", 1, "KVP900")]
    assert [r["message"] for r in rows if r["path"] == "two.py"] == [
        "cannot parse: invalid non-printable character U+FEFF; fix that so the KVP rules can "
        "check this file"]
    before = (root / "two.py").read_bytes()
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=root, expect=1)
    assert (root / "two.py").read_bytes() == before  # never "fixed" as if it parsed
    assert (root / "one.py").read_bytes() == codecs.BOM_UTF8 + (head + FIXED).encode()


def test_a_huge_module_with_the_vocabulary_is_kvp900_without_parsing_it(tmp_path):
    # a 54 MB module naming the vocabulary was parsed whole: 5 GB of memory (Python's syntax
    # tree takes 70-90 bytes per character) and 21 s, for a data table. Now above 8 Mi
    # characters it is one KVP900 saying why; the other files keep their findings, a data
    # module without the vocabulary (never parsed) stays clean
    row = "    0x%08x, 0x%08x, 0x%08x, 0x%08x,\n"
    table = "TABLE = [\n" + "".join(row % (i, i, i, i) for i in range(200_000)) + "]\n"
    assert len(table) > 8 * 1024 * 1024
    root = write(tmp_path / "t", {"huge.py": GATED + table, "data.py": table, "b.py": STALE})
    script = ("import resource, subprocess, sys\n"
              "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
              "sys.stdout.write(done.stdout)\nsys.stderr.write(done.stderr)\n"
              "sys.exit(done.returncode)\n")
    done = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "lint_rules.cli",
                           "lint", "--isolated", "--no-cache", "--jobs", "1", "."], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    peak_kib, *lines = done.stdout.splitlines()
    assert int(peak_kib) < 400 * 1024, peak_kib  # parsed, it took ~800 MB
    assert lines == [
        "b.py:3:9: KVP001 " + lines[0].split(" KVP001 ", 1)[1],
        f"huge.py:1:1: KVP900 cannot parse: the file has {len(GATED + table):,} characters, "
        "more than the 8,388,608 poolguard parses (its syntax tree would take about 0.8 GB of "
        "memory); split the file, or exclude it if it is data"]
