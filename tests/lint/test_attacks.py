"""A hostile user's attacks on the CLI (issue 16): a killed run leaves no process behind, the
fix path survives what the lint survives, baselines survive symlinked folders, a broken config
is never silently dropped, and an I/O problem is never reported as a poolguard bug."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from textwrap import dedent

import pytest
from clirun import STALE, chain, json_rows, poolguard, write
from slowed_cli import SCRIPT as SLOWED_CLI
from slowed_cli import default_signals


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
    """400 backends: paused before each file (slowed_cli), a --jobs 2 run keeps its workers
    busy for seconds, however fast the analysis itself gets."""
    return write(tmp_path_factory.mktemp("big"),
                 {f"b{i:04d}.py": chain(200) for i in range(400)})


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_run_takes_its_workers_with_it(big_tree, signum):
    command = [sys.executable, SLOWED_CLI, "lint", "--no-cache", "--jobs", "2", "."]
    run = subprocess.Popen(command, cwd=big_tree, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=default_signals)
    deadline = time.monotonic() + 60
    while len(_children(run.pid)) < 2 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(run.pid)
    assert len(workers) >= 2, "the workers never started"
    run.send_signal(signum)
    # EOF on both pipes: nobody else holds them (30 s: an overloaded 2-core CI box is slow to reap)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 128 + signum, (run.returncode, err)
    assert b"Traceback" not in err, err
    time.sleep(0.5)
    assert not [pid for pid in workers if _alive(pid)]


GATED = dedent("""\
    class DemoAttnBackend(FlashInferAttnBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

        def _maybe_translate(self, loc):
            if not self.use_sliding_window_kv_pool:
                return loc
            return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

        def long(self, layer):
            return {terms}
""")


def test_the_fix_paths_survive_a_long_expression_the_lint_survives(tmp_path):
    """400 terms broke libcst's fix and the SARIF fixes (RecursionError: every finding lost);
    1500 broke --add-noqa's same-code check. Each path does what it does on short code."""
    sources = {f"c{n}.py": GATED.format(terms=" + ".join(["layer.x"] * n)) for n in (400, 1500)}
    tree = write(tmp_path / "t", sources)
    names = sorted(sources)
    lint = poolguard("lint", "--no-cache", "--isolated", "--format", "json", *names, cwd=tree,
                     expect=1)
    assert json_rows(lint.stdout) == [(name, 7, "KVP003") for name in names]
    noqa = poolguard("lint", "--no-cache", "--isolated", "--add-noqa", *names, cwd=tree,
                     expect=0)
    assert "added noqa to 2 lines in 2 files" in noqa.stderr, noqa.stderr
    poolguard("lint", "--no-cache", "--isolated", *names, cwd=tree, expect=0)
    (tree / "c400.py").write_text(sources["c400.py"])
    diff = poolguard("lint", "--no-cache", "--isolated", "--diff", "c400.py", cwd=tree, expect=1)
    assert "+        if self._swa_kv_pool is None:" in diff.stdout, diff.stderr
    sarif = poolguard("lint", "--no-cache", "--isolated", "--format", "sarif", "c400.py",
                      cwd=tree, expect=1)
    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    assert result.get("fixes"), result
    poolguard("lint", "--no-cache", "--isolated", "--fix", "c400.py", cwd=tree, expect=0)
    assert "if self._swa_kv_pool is None:" in (tree / "c400.py").read_text()


def test_a_baseline_matches_through_a_symlinked_folder(tmp_path):
    real = write(tmp_path / "real", {"pkg/m.py": STALE})
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    poolguard("lint", "--no-cache", "--isolated", "--write-baseline", "bl.json", "pkg",
              cwd=real, expect=0)
    for baseline, path in [(link / "bl.json", "pkg/m.py"), ("bl.json", link / "pkg" / "m.py"),
                           (link / "bl.json", link / "pkg")]:
        done = poolguard("lint", "--no-cache", "--isolated", "--baseline", str(baseline),
                         str(path), cwd=real, expect=0)
        assert "1 finding hidden by the baseline" in done.stderr, done.stderr


BROKEN_CONFIGS = {
    "setup.cfg": b"[flake8\nselect = KVP001\n",  # unclosed section header
    "tox.ini": b"[flake8]\nselect = KVP001\nselect = KVP002\n",  # duplicate key
    ".flake8": b"[poolguard]\nselect = KVP001\n[poolguard]\nselect = KVP002\n",
    "a/setup.cfg": b"[flake8]\nselect = KVP001 \xff\n",  # not UTF-8
}


@pytest.mark.parametrize("name", sorted(BROKEN_CONFIGS))
def test_a_broken_config_found_by_the_search_stops_the_run(tmp_path, name):
    """As ``--config FILE`` does: exit 2, one line naming the file (never its select dropped)."""
    tree = write(tmp_path / "t", {name: BROKEN_CONFIGS[name], "a/m.py": STALE})
    done = poolguard("lint", "--no-cache", "m.py", cwd=tree / "a", expect=2)
    assert f"cannot parse config file {tree / name}" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_a_broken_file_with_none_of_our_sections_is_not_ours(tmp_path):
    tree = write(tmp_path / "t", {"setup.cfg": b"[metadata\nname = x\n", "m.py": STALE})
    poolguard("lint", "--no-cache", "m.py", cwd=tree, expect=1)


COOKIES = {  # a file its declared encoding cannot read: one KVP900 each, never a silent skip
    "utf16.py": b"# -*- coding: utf-16 -*-\n",  # not ASCII-based: decodes to garbage
    "unknown.py": b"# -*- coding: no-such-codec -*-\n",
    "bom_latin1.py": b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n",
    "ascii.py": b"# -*- coding: ascii -*-\n# \xc3\xa9\n",
}


def test_an_encoding_cookie_that_cannot_read_its_file_is_one_kvp900(tmp_path):
    fine = {"latin1.py": b"# -*- coding: latin-1 -*-\n# \xe9\n",
            "bom_utf8.py": b"\xef\xbb\xbf# -*- coding: utf-8 -*-\n"}
    tree = write(tmp_path / "t", {name: head + STALE.encode()
                                  for name, head in {**COOKIES, **fine}.items()})
    done = poolguard("lint", "--no-cache", "--isolated", "--format", "json", ".", cwd=tree,
                     expect=1)
    assert json_rows(done.stdout) == sorted(
        [(name, 1, "KVP900") for name in COOKIES]
        + [(name, head.count(b"\n") + 3, "KVP001") for name, head in fine.items()])
    noqa = poolguard("lint", "--no-cache", "--isolated", "--add-noqa", ".", cwd=tree, expect=2)
    for name in COOKIES:  # named, never "added noqa to 0 lines in 0 files" alone
        assert f"{name}: cannot add noqa: the file was not checked (KVP900" in noqa.stderr
    assert "added noqa to 2 lines in 2 files" in noqa.stderr, noqa.stderr


def test_a_config_that_is_not_a_regular_file_is_named_as_such(tmp_path):
    tree = write(tmp_path / "t", {"m.py": STALE})
    done = poolguard("lint", "--config", os.devnull, "m.py", cwd=tree, expect=2)
    assert done.stderr == f"poolguard: error: config file {os.devnull} is not a regular file\n"
    done = poolguard("lint", "--config", "missing.cfg", "m.py", cwd=tree, expect=2)
    assert "config file missing.cfg does not exist" in done.stderr
