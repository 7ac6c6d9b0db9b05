"""Every run ends (issue 16, class 4): Ctrl-C within a second, a FIFO never read.

Real signals to a real cold ``--jobs 2`` run (SIGINT to the whole process group, as a
terminal sends it, and to the main process alone; once and twice at once), and real FIFOs,
devices, directories and oversized files named as a baseline.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from clirun import STALE, chain, poolguard, write
from slowed_cli import SCRIPT as SLOWED_CLI
from slowed_cli import default_signals

STOP_WITHIN_S = 1.0


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory):
    """Enough files that a run paused before each one (slowed_cli) is busy for seconds."""
    return write(tmp_path_factory.mktemp("slow"),
                 {f"b{i:04d}.py": chain(200) for i in range(400)})


def _interrupt(tree, times: int, gap: float, group: bool) -> tuple:
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(tree / ".cache")}
    run = subprocess.Popen([sys.executable, SLOWED_CLI, "lint", "--isolated",
                            "--no-cache", "--jobs", "2", "."], cwd=tree, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           start_new_session=True, preexec_fn=default_signals)
    try:
        time.sleep(1.5)  # imports done, the workers busy parsing
        assert run.poll() is None, "the run ended before the signal: make the tree slower"
        start = time.monotonic()
        for _ in range(times):
            if group:
                os.killpg(run.pid, signal.SIGINT)
            else:
                run.send_signal(signal.SIGINT)
            time.sleep(gap)
        run.wait(timeout=30)
        return run.returncode, time.monotonic() - start, run.stderr.read().decode()
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
            pytest.fail("the run hung after SIGINT")
        _no_children_left(run.pid)


def _no_children_left(pid: int) -> None:
    """No worker outlives the run (each would keep parsing, or hold the terminal)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("worker processes outlived the interrupted run")


@pytest.mark.parametrize("times, gap, group", [(1, 0, True), (2, 0, True), (1, 0, False),
                                               (2, 0.03, False), (5, 0.005, True)],
                         ids=["once", "twice-at-once", "once-main-only", "twice-main-only",
                              "five-times"])
def test_ctrl_c_ends_a_cold_parallel_run_within_a_second(slow_tree, times, gap, group):
    status, seconds, stderr = _interrupt(slow_tree, times, gap, group)
    assert status == 130, (status, stderr)
    assert seconds < STOP_WITHIN_S + gap * times, seconds
    assert "Traceback" not in stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_baseline_that_is_no_regular_file_is_refused_without_blocking(tmp_path):
    tree = write(tmp_path / "tree", {"s.py": STALE})
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    with open(tmp_path / "huge.json", "wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    cases = {"../fifo": "not a regular file", "../dir": "not a regular file",
             "/dev/zero": "not a regular file", "../huge.json": "larger than"}
    for name, reason in cases.items():
        read = poolguard("lint", "--isolated", "--baseline", name, cwd=tree, expect=2,
                         timeout=30)
        assert f"cannot read baseline {name}: {reason}" in read.stderr, read.stderr
    for name in ("../fifo", "../dir", "/dev/zero", "/dev/null"):
        wrote = poolguard("lint", "--isolated", "--write-baseline", name, cwd=tree, expect=2,
                          timeout=30)
        assert f"cannot write baseline {name}: not a regular file" in wrote.stderr
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_baseline_through_a_symlink_is_written_to_its_target(tmp_path):
    tree = write(tmp_path / "tree", {"s.py": STALE})
    (tmp_path / "real.json").write_text("")
    os.symlink("real.json", tmp_path / "link.json")
    poolguard("lint", "--isolated", "--write-baseline", "../link.json", cwd=tree, expect=0)
    assert (tmp_path / "link.json").is_symlink()
    assert '"KVP001"' in (tmp_path / "real.json").read_text()
    poolguard("lint", "--isolated", "--baseline", "../link.json", cwd=tree, expect=0)


_SHARED_MIXINS = '''\
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class _LiveProbeMixin:
    @property
    def paged_swa(self) -> bool:
        return isinstance(self.token_to_kv_pool, SWAKVPool)


class _PagedPlanMixin:
    def _plan(self, forward_batch):
        if self.paged_swa:
            forward_batch.translate = True


class LivePagedAttnBackend(_PagedPlanMixin, _LiveProbeMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool


class RefreshedProbeMixin:
    def init_forward_metadata(self, forward_batch):
        self.paged_swa = isinstance(self.token_to_kv_pool, SWAKVPool)
        self._plan(forward_batch)


class RefreshedPagedAttnBackend(RefreshedProbeMixin, _PagedPlanMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
'''


def test_copies_of_one_module_with_shared_mixins_end(tmp_path):
    """Mixins are paired with their heirs by the class each heir inherits, not by its name:
    four copies of one module (its mixins' names in every copy) each asked every other's
    heirs, and four copies did not end in ten minutes (the attack18 report)."""
    write(tmp_path, {f"c{copy}/m.py": _SHARED_MIXINS for copy in range(6)})
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=tmp_path, expect=0,
                     timeout=120)
    assert "KVP900" not in done.stdout
