"""A sixteenth hostile round (attack16): what the pool attribute of a safe fix may hold, and a
report the reader of a pipe left half-read; through the real ``poolguard`` subprocess on real
files."""
from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from clirun import STALE, poolguard, write

# A type flag (KVP002) beside a store into the pool attribute the property fix would read.
TYPE_FLAG = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = {value}
            self.use_swa = isinstance(self.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_swa:
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            return q
""")


@pytest.mark.parametrize("value", [
    "None",  # never a pool: the property would say "not SWA" for every model
    "model_runner.token_to_kv_pool_allocator",  # never None: "SWA" for every model
    "4", "[]", "f'{model_runner}'",
])
def test_a_pool_attr_that_holds_no_pool_is_never_fixed_into(tmp_path, value):
    # the safe KVP002 fix made `use_swa` a property `self._swa_kv_pool is not None` whatever
    # the class stored there: a constant, the allocator (which the fix's own resolver asks
    # for the pool) or a number, so the flag read always true or always false
    source = TYPE_FLAG.format(value=value)
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--no-cache", "--isolated", "--fix", "b.py", cwd=root, expect=1)
    assert (root / "b.py").read_text() == source, done.stderr
    assert "b.py:8:9: KVP002 self.use_swa" in done.stdout, done.stdout


@pytest.mark.parametrize("value", [
    "self.token_to_kv_pool if isinstance(self.token_to_kv_pool, SWAKVPool) else None",
    "self._resolve_swa_kv_pool(model_runner)",
])
def test_a_pool_attr_holding_the_pool_or_none_is_still_fixed_into(tmp_path, value):
    root = write(tmp_path / "t", {"b.py": TYPE_FLAG.format(value=value)})
    poolguard("lint", "--no-cache", "--isolated", "--fix", "b.py", cwd=root)
    fixed = (root / "b.py").read_text()
    assert "def use_swa(self):" in fixed and "self.use_swa = isinstance" not in fixed


def _limited_file_size(limit: int):
    """For a child: files it writes may grow to ``limit`` bytes; a write past it takes what
    fits and then fails with EFBIG (SIGXFSZ ignored), as a disk that fills up does."""
    def limit_it():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return limit_it


@pytest.mark.parametrize("form", ["text", "json", "sarif", "diff"])
def test_a_report_the_disk_takes_only_part_of_is_an_error(tmp_path, form):
    # stdout took the first 64 KiB of the report and refused the rest: the report was cut
    # (a SARIF file no upload parses) and the run exited 1, as if the report were whole
    fixable = TYPE_FLAG.format(value="None if model_runner.is_draft_worker else "
                                     "self.token_to_kv_pool")
    root = write(tmp_path / "t", {f"m{i}.py": fixable for i in range(200)})
    report = tmp_path / "report"
    args = ["--diff"] if form == "diff" else ["--format", form]
    with open(report, "wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "lint_rules.cli", "lint", "--isolated", "--no-cache", *args,
             "."], cwd=root, stdout=out, stderr=subprocess.PIPE, text=True, timeout=300,
            preexec_fn=_limited_file_size(16384))
    assert "Traceback" not in done.stderr, done.stderr
    assert report.stat().st_size == 16384
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.splitlines()[-1] == (
        "poolguard: error: cannot write the report to stdout: File too large"), done.stderr


def test_a_report_whose_reader_left_early_is_an_error(tmp_path):
    # `poolguard lint | head -1` with a report longer than the pipe holds: exit 2 (as said
    # for a reader that left), not the 1 of a report written whole
    root = write(tmp_path / "t", {f"m{i}.py": STALE for i in range(1000)})
    child = subprocess.Popen([sys.executable, "-m", "lint_rules.cli", "lint", "--isolated",
                              "--no-cache", "."], cwd=root, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout.readline().startswith(b"m")
    child.stdout.close()
    assert child.wait(timeout=300) == 2
    assert b"Traceback" not in child.stderr.read()


# Deletes a file as soon as its modification time shows a write (its fix).
_DELETE_WHEN_WRITTEN = (
    "import os, sys, time\n"
    "path = sys.argv[1]\n"
    "start = os.stat(path).st_mtime_ns\n"
    "deadline = time.time() + 120\n"
    "while os.stat(path).st_mtime_ns == start and time.time() < deadline:\n"
    "    time.sleep(0.001)\n"
    "os.unlink(path)\n")


def test_a_file_fixed_then_deleted_mid_run_keeps_its_result(tmp_path):
    # --fix analyses the package again once a fix rewrote a module others read, walking the
    # tree anew: a file the first pass had fixed and that was gone by then lost its findings
    # and its place in "Fixed N files", with no line said about it
    example = (Path(__file__).resolve().parents[2] / "lint_rules" / "examples"
               / "trtllm_backend_prefix.py").read_text()
    files = {f"m{i}.py": example for i in range(30)}
    files["a_first.py"] = example + "# padding, so it is read and fixed first\n" * 3000
    root = write(tmp_path / "t", files)
    watcher = subprocess.Popen([sys.executable, "-c", _DELETE_WHEN_WRITTEN,
                                str(root / "a_first.py")])
    try:
        done = poolguard("lint", "--isolated", "--no-cache", "--fix", "--jobs", "1", ".",
                         cwd=root)
    finally:
        watcher.wait(timeout=150)
    assert not (root / "a_first.py").exists()
    assert "Fixed 31 files" in done.stderr, done.stderr
    assert "a_first.py:36:9: KVP001" in done.stdout, done.stdout


# Attribute names only setattr can give: a newline with a forged finding after it, an escape
# sequence, a line separator.
ODD_NAMES = (
    "class DemoAttnBackend(AttentionBackend):\n"
    "    def __init__(self, model_runner):\n"
    "        setattr(self, 'pool\\nx.py:1:1: KVP999 \\x1b[31mforged',\n"
    "                model_runner.token_to_kv_pool)\n"
    "        setattr(self, 'is_swa\\u2028z',\n"
    "                isinstance(model_runner.token_to_kv_pool, SWAKVPool))\n"
    "\n"
    "    def forward(self):\n"
    "        if getattr(self, 'is_swa\\u2028z'):\n"
    "            return 1\n")


def test_a_name_from_the_source_never_breaks_a_findings_line(tmp_path):
    # the message quoted the name raw: the text report (and flake8's) showed a line
    # 'x.py:1:1: KVP999 ...' of its own, and the terminal obeyed ESC [31m
    root = write(tmp_path / "t", {"s.py": ODD_NAMES})
    shown = "self.pool\\nx.py:1:1: KVP999 \\x1b[31mforged caches pool state"
    for form in ("text", "github"):
        done = poolguard("lint", "--isolated", "--no-cache", "--format", form, "s.py",
                         cwd=root, expect=1)
        lines = done.stdout.splitlines()
        assert len(lines) == 3 and shown in lines[0], lines
        assert "self.is_swa\\u2028z" in lines[1] and "\x1b" not in done.stdout, lines
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
                             "s.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert flake8.stdout.splitlines()[0] == f"s.py:3:9: KVP001 {shown} in __init__(); " \
        "FROZEN_KV swaps pools: read self.token_to_kv_pool per forward", flake8.stdout
    assert len(flake8.stdout.splitlines()) == 3, flake8.stdout


@pytest.mark.parametrize("update", ["self.__dict__.update(_swa_kv_pool=other)",
                                    "vars(self).update(dict(swa=other), extra=other)"])
def test_a_namespace_update_from_a_plain_local_is_analysed(tmp_path, update):
    # a keyword's value that is a local name was read as a local bound to a dict display:
    # KeyError 'other', an internal error (exit 2) for the CLI and a traceback that ends the
    # whole flake8 run
    source = ("class DemoAttnBackend(AttentionBackend):\n"
              "    def __init__(self, model_runner):\n"
              "        self._swa_kv_pool = model_runner.token_to_kv_pool\n\n"
              "    def reset(self, other):\n"
              f"        {update}\n")
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--isolated", "--no-cache", "b.py", cwd=root, expect=1)
    assert done.stdout.startswith("b.py:3:9: KVP001 self._swa_kv_pool"), done.stdout
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
                             "b.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert flake8.returncode == 1 and not flake8.stderr, flake8.stderr
    assert flake8.stdout.startswith("b.py:3:9: KVP001 self._swa_kv_pool"), flake8.stdout
