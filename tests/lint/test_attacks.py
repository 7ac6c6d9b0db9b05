"""A hostile user's attacks on the CLI (issue 16): a killed run leaves no process behind, the
fix path survives what the lint survives, baselines survive symlinked folders, a broken config
is never silently dropped, and an I/O problem is never reported as a poolguard bug."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from clirun import load_wheels_helper

sglang_wheels = load_wheels_helper()


def _children(pid: int) -> set:
    """Pids whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    """Three copies of SGLang 0.5.23's attention backends: a cold --jobs 2 run lasts seconds."""
    attention = sglang_wheels.source_tree("0.5.23") / "sglang" / "srt" / "layers" / "attention"
    root = tmp_path_factory.mktemp("big")
    for copy in range(3):
        shutil.copytree(attention, root / f"a{copy}")
    return root


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_run_takes_its_workers_with_it(big_tree, signum):
    command = [sys.executable, "-m", "lint_rules.cli", "lint", "--no-cache", "--jobs", "2", "."]
    run = subprocess.Popen(command, cwd=big_tree, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(_children(run.pid)) < 2 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(run.pid)
    assert len(workers) >= 2, "the workers never started"
    run.send_signal(signum)
    out, err = run.communicate(timeout=10)  # EOF on both pipes: nobody else holds them
    assert run.returncode == 128 + signum, (run.returncode, err)
    assert b"Traceback" not in err, err
    time.sleep(0.5)
    assert not [pid for pid in workers if _alive(pid)]
