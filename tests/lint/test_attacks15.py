"""A fifteenth hostile round (attack15): standard input under flake8 and in a baseline, names
and values a line cannot hold, a file that became a FIFO mid-run, a module of thousands of
backends; through the real ``poolguard`` and ``flake8`` subprocesses on real files."""
from __future__ import annotations

import subprocess
import sys

import pytest

from clirun import poolguard, write

STALE_POOL = ("class DemoAttnBackend(AttentionBackend):\n"
              "    def __init__(self, model_runner):\n"
              "        self.swa_pool = model_runner.token_to_kv_pool  # caf\xe9\n")
STALE_FINDING = ("3:9: KVP001 self.swa_pool caches pool state in __init__(); FROZEN_KV swaps "
                 "pools: read self.token_to_kv_pool per forward\n")


def _flake8(*args: str, cwd, stdin: bytes = b"") -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP", *args],
                          cwd=cwd, input=stdin, capture_output=True, timeout=120)
    assert b"Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("display", [None, "m.py"], ids=["default-name", "display-name"])
def test_flake8_lints_stdin_as_sent_whatever_a_file_of_its_name_holds(tmp_path, display):
    # An editor lints its buffer through 'flake8 --stdin-display-name m.py -': flake8 names
    # standard input by the display name (default 'stdin'), and the plugin, looking for
    # flake8's latin-1 fallback, read the file of that name again. The buffer, now UTF-8, has
    # the text the file on disk (still latin-1) falls back to: 'm.py:1:1: KVP900 cannot
    # decode the file' of a buffer that decodes, where 'poolguard lint --stdin-filename m.py -'
    # lints it. flake8 decodes standard input strictly (no fallback): never read again.
    name = display or "stdin"
    root = write(tmp_path / "t", {name: STALE_POOL.encode("latin-1")})
    buffer = STALE_POOL.encode("utf-8")
    options = ("--stdin-display-name", display) if display else ()
    flake8 = _flake8(*options, "-", cwd=root, stdin=buffer)
    cli = poolguard("lint", "--isolated", "--no-cache", "--stdin-filename", name, "-",
                    cwd=root, text=False, stdin=_stdin_file(tmp_path, buffer),
                    expect=1)
    assert cli.stdout.decode() == f"{name}:{STALE_FINDING}"
    assert flake8.stdout.decode() == f"{name}:{STALE_FINDING}"
    # the file itself is still KVP900 to both
    on_disk = _flake8(name, cwd=root)
    assert on_disk.stdout.decode().startswith(f"{name}:1:1: KVP900 cannot parse: cannot decode")


def _stdin_file(tmp_path, data: bytes):
    path = tmp_path / "stdin.bytes"
    path.write_bytes(data)
    return path.open("rb")
