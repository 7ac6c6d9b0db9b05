"""Helpers for tests that run the real ``poolguard`` CLI as a subprocess on scratch trees."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from textwrap import dedent

# One KVP001 at line 3 (the pool cached in __init__): the finding every "other file" must keep.
STALE = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.swa_pool = model_runner.token_to_kv_pool
""")


def poolguard(*args, cwd: Path, cache_dir: Path | None = None, expect: int | None = None,
              timeout: float = 300, text: bool = True, env: dict | None = None, stdin=None):
    """Run ``python -m lint_rules.cli`` in ``cwd``; assert the exit status when given.

    Never a traceback, never a signal death: whatever the input, the CLI answers 0, 1 or 2.
    """
    env = {**os.environ, **(env or {})}
    env["POOLGUARD_CACHE_DIR"] = str(cache_dir or cwd.parent / f"{cwd.name}.cache")
    env.pop("PYTHONWARNINGS", None)
    command = [sys.executable, "-m", "lint_rules.cli", *args]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=text,
                          timeout=timeout, stdin=stdin)
    stderr = done.stderr if text else done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    assert done.returncode in (0, 1, 2), (done.returncode, stderr)
    if expect is not None:
        assert done.returncode == expect, (done.returncode, done.stdout, stderr)
    return done


def write(root: Path, files: dict) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def json_rows(stdout: str) -> list:
    """``(path, line, code)`` per finding of a ``--format json`` run, sorted."""
    return sorted((row["path"], row["line"], row["code"]) for row in json.loads(stdout))


# Rewrites a file in place (a hard link stays one file) as soon as its access time shows a read.
_EDIT_WHEN_READ = (
    "import os, sys, time\n"
    "path, text = sys.argv[1], sys.argv[2]\n"
    "start = os.stat(path).st_atime_ns\n"
    "deadline = time.time() + 60\n"
    "while os.stat(path).st_atime_ns == start and time.time() < deadline:\n"
    "    time.sleep(0.001)\n"
    "with open(path, 'r+') as f:\n"
    "    f.write(text)\n    f.truncate()\n")


def fix_while_edited(tree: Path, name: str, edited: str):
    """``poolguard lint --fix`` of ``tree`` while a watcher process rewrites ``name`` with
    ``edited`` as soon as the run has read it. Files are read (largest first) before any is
    analysed, so a large file in ``tree`` keeps the one worker busy while the edit lands
    between the read of ``name`` and the write of its fix."""
    watcher = subprocess.Popen([sys.executable, "-c", _EDIT_WHEN_READ, str(tree / name), edited])
    try:
        os.utime(tree / name, ns=(0, time.time_ns()))  # atime 0: any read changes it
        return poolguard("lint", "--isolated", "--no-cache", "--fix", "--jobs", "1", ".",
                         cwd=tree)
    finally:
        watcher.wait(timeout=90)


def deep_brackets(depth: int = 2000, nul: bool = False) -> str:
    """A backend whose body nests ``depth`` brackets: libcst's native parser overflows its
    stack (SIGSEGV) on it. With ``nul`` a NUL byte makes CPython reject the file first
    (``ValueError``), so only libcst can say why it does not parse."""
    body = STALE + "        x = " + "(" * depth + "1" + ")" * depth + "\n"
    return body + ("# \x00\n" if nul else "")


def chain(items: int) -> str:
    """Valid code: a backend whose ``__init__`` holds an ``items``-term ``+`` chain."""
    return STALE + "        total = " + " + ".join(["size"] * items) + "\n"


def load_wheels_helper():
    """``tests/sglang_wheels.py`` as a module: tests/ is not a package, so it is loaded by path."""
    path = Path(__file__).resolve().parents[1] / "sglang_wheels.py"
    spec = importlib.util.spec_from_file_location("sglang_wheels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
