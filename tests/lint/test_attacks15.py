"""A fifteenth hostile round (attack15): standard input under flake8 and in a baseline, names
and values a line cannot hold, a file that became a FIFO mid-run, a module of thousands of
backends, our config section's per-file-ignores; through the real ``poolguard`` and
``flake8`` subprocesses on real files."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from clirun import json_rows, poolguard, write

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


# Characters that end a line for str.splitlines (NEL, LINE and PARAGRAPH SEPARATOR) or that a
# terminal takes as a control (C1: U+009B is CSI, ESC '[' in one character).
LINE_BREAKERS = ["\x85", "\u2028", "\u2029", "\x9b"]


@pytest.mark.parametrize("char", LINE_BREAKERS, ids=["nel", "ls", "ps", "csi"])
def test_a_name_with_a_line_break_python_reads_is_quoted_in_text_and_error_lines(tmp_path, char):
    # The text format quoted a name holding a C0 control ('"a\\nb.py"') but wrote NEL, U+2028,
    # U+2029 and the C1 controls as they are: 'c\x85d.py:3:9: KVP001 ...' is two lines to
    # str.splitlines (an editor's or a CI's parser of flake8-shaped lines), and U+009B opens
    # a control sequence on a terminal. Such a name is git-quoted as git quotes it, every
    # byte above 0x7F an octal escape, on stdout and on stderr alike.
    name = f"c{char}d.py"
    quoted = '"c' + "".join("\\%03o" % byte for byte in char.encode()) + 'd.py"'
    root = write(tmp_path / "t", {name: STALE_POOL})
    done = poolguard("lint", "--isolated", "--no-cache", ".", f"gone{char}.py", cwd=root,
                     expect=2)
    assert done.stdout == f"{quoted}:{STALE_FINDING}"
    gone = '"gone' + "".join("\\%03o" % byte for byte in char.encode()) + '.py"'
    assert done.stderr.splitlines()[0].startswith(f"poolguard: error: {gone}: ")
    assert len(done.stderr.splitlines()) == 2  # the error and the summary
    assert char not in done.stdout + done.stderr


HUGE = "x" * 100_000
HUGE_CASES = {  # (arguments after 'poolguard', environment, setup.cfg)
    "select": (["lint", "--select", "KVP" + "9" * 100_000, "."], {}, None),
    "select-many": (["lint", "--select", ",".join(["X1"] * 30_000), "."], {}, None),
    "lowercase": (["lint", "--ignore", "kvp" + HUGE, "."], {}, None),
    "jobs": (["lint", "--jobs", "9" * 100_000, "."], {}, None),
    "pool-attr": (["lint", "--kvp-pool-attr", "a-" + HUGE, "."], {}, None),
    "swa-flags": (["lint", "--kvp-swa-flags", "a-" + HUGE, "."], {}, None),
    "timeout": (["lint", "."], {"POOLGUARD_PARSE_TIMEOUT": HUGE}, None),
    "explain": (["explain", HUGE], {}, None),
    "format": (["lint", "--format", HUGE, "."], {}, None),
    "blank-config": (["lint", "--config", " " * 100_000, "."], {}, None),
    "config-select": (["lint", "."], {}, "[flake8]\nselect = KVP" + "9" * 100_000 + "\n"),
    "per-file-ignores": (["lint", "."], {}, "[flake8]\nper-file-ignores = " + HUGE + "\n"),
    "config-key": (["lint", "."], {}, "[poolguard]\n" + HUGE + " = 1\n"),
}


@pytest.mark.parametrize("case", list(HUGE_CASES))
def test_a_huge_value_is_refused_in_one_short_line(tmp_path, case):
    # Every refusal quoted the value whole: '--select KVP999...' (100,000 characters) came back
    # as a 100,100-character error line, 30,000 bad codes as all of them, and argparse's
    # 'invalid choice' and the config parser's messages alike (the guard's switches were cut
    # short in attack11). A refused value is shown cut, with its length; the line still says
    # what is wrong and what is accepted.
    argv, env, config = HUGE_CASES[case]
    files = {"m.py": STALE_POOL, **({"setup.cfg": config} if config else {})}
    root = write(tmp_path / "t", files)
    done = poolguard(*argv, cwd=root, env=env, expect=2)
    last = done.stderr.splitlines()[-1]
    assert last.startswith("poolguard"), last[:200]
    assert "error: " in last
    assert len(last) < 1000, (len(last), last[:300])
    assert "characters" in last or " more " in last  # how much was left out


def test_flake8_refuses_a_huge_option_value_in_one_short_line(tmp_path):
    root = write(tmp_path / "t", {"m.py": STALE_POOL})
    done = _flake8("--kvp-pool-attr", "a-" + HUGE, "m.py", cwd=root)
    assert done.returncode != 0
    last = (done.stdout + done.stderr).decode().splitlines()[-1]  # flake8 says it on stdout
    assert last.startswith("sglang-poolguard: kvp-pool-attr must be a Python identifier")
    assert len(last) < 600, len(last)


# Replaces a file by a FIFO as soon as its access time shows the run read it.
_FIFO_WHEN_READ = (
    "import os, sys, time\n"
    "path = sys.argv[1]\n"
    "start = os.stat(path).st_atime_ns\n"
    "deadline = time.time() + 60\n"
    "while os.stat(path).st_atime_ns == start and time.time() < deadline:\n"
    "    time.sleep(0.001)\n"
    "os.unlink(path)\n"
    "os.mkfifo(path)\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("flags", [["--write-baseline", "../new.json"],
                                   ["--baseline", "../old.json"], ["--add-noqa"]],
                         ids=["write-baseline", "baseline", "add-noqa"])
def test_a_file_that_became_a_fifo_during_the_run_never_hangs_the_adoption(tmp_path, flags):
    # The lint reads each file non-blocking and checks it is a regular file, but the baseline's
    # fingerprints and --add-noqa read the flagged files again, after the whole run, with a
    # plain open(): a file replaced by a FIFO meanwhile (a tool's named pipe, a swap of
    # checkouts) blocked the run for ever. Read again as the lint reads: never a FIFO.
    big = "".join(STALE_POOL.replace("DemoAttnBackend", f"B{i}AttnBackend") for i in range(50))
    root = write(tmp_path / "t", {"a.py": STALE_POOL, "big.py": big})
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "../old.json", "a.py",
              cwd=root, expect=0)
    watcher = subprocess.Popen([sys.executable, "-c", _FIFO_WHEN_READ, str(root / "a.py")])
    try:
        os.utime(root / "a.py", ns=(0, time.time_ns()))  # atime 0: any read changes it
        done = poolguard("lint", "--isolated", "--no-cache", "--jobs", "1", *flags, "a.py",
                         "big.py", cwd=root, timeout=60)
    finally:
        watcher.wait(timeout=90)
    assert stat.S_ISFIFO(os.lstat(root / "a.py").st_mode)  # the swap came while the run ran
    if "--add-noqa" in flags:
        assert "a.py: cannot add noqa: not a regular file" in done.stderr
        assert done.returncode == 2


def test_a_module_of_thousands_of_flagged_backends_is_linted_in_linear_time(tmp_path):
    # 'poolguard lint DIR' asks, per backend class with a finding, whether the codemod would
    # refuse it, and that asked the same-file lint of the whole module again each time: N
    # classes, N whole lints. 400 one-line backends took 6 s of CPU, 800 26 s, 2,000 ran into
    # the time limit (KVP900: every finding of the file lost). The same-file lint is run once.
    count = 2000
    source = "".join(STALE_POOL.replace("DemoAttnBackend", f"B{i}AttnBackend")
                     for i in range(count))
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "b.py", cwd=root,
                     expect=1, env={"POOLGUARD_PARSE_TIMEOUT": "15"})
    rows = json_rows(done.stdout)
    assert rows == [("b.py", 3 * i + 3, "KVP001") for i in range(count)], rows[:3]


def test_a_baseline_of_standard_input_fingerprints_the_source_read_from_it(tmp_path):
    # A baseline row keys a finding by the text of its line, read back from the file of the
    # finding's path: for standard input that is the file on disk of the --stdin-filename
    # name, not the source linted. An editor's buffer, one line inserted above the baselined
    # finding, was 'm.py:4:9: KVP001 ...' (new) where the same file on disk passed; and
    # --write-baseline from standard input fingerprinted a line of the file on disk.
    buffer = "\n" + STALE_POOL
    root = write(tmp_path / "t", {"m.py": STALE_POOL, "moved.py": buffer})
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "disk.json", "m.py",
              cwd=root, expect=0)
    poolguard("lint", "--isolated", "--no-cache", "--baseline", "disk.json", "m.py", cwd=root,
              expect=0)
    sent = poolguard("lint", "--isolated", "--no-cache", "--baseline", "disk.json",
                     "--stdin-filename", "m.py", "-", cwd=root, text=False,
                     stdin=_stdin_file(tmp_path, buffer.encode()))
    assert (sent.returncode, sent.stdout) == (0, b"")
    assert b"All checks passed! (1 finding hidden by the baseline)" in sent.stderr
    # written from standard input, it is the baseline the same text on disk gets
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "sent.json",
              "--stdin-filename", "moved.py", "-", cwd=root, expect=0,
              stdin=_stdin_file(tmp_path, STALE_POOL.encode()))
    (root / "moved.py").write_text(STALE_POOL)
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "file.json", "moved.py",
              cwd=root, expect=0)
    assert (root / "sent.json").read_text() == (root / "file.json").read_text()


def test_a_per_file_ignores_of_our_own_section_holds_our_codes(tmp_path):
    # [poolguard] is no other tool's: 'ignore = E501' there is refused (attack12), but
    # 'per-file-ignores = m.py:E501' was dropped as another tool's code, and the run went on
    # without a word, as if the user had meant nothing. In [flake8] it stays another tool's.
    root = write(tmp_path / "t", {"m.py": STALE_POOL,
                                  "setup.cfg": "[poolguard]\nper-file-ignores =\n"
                                               "    m.py: KVP004\n    m.py: E501\n"})
    done = poolguard("lint", "m.py", cwd=root, expect=2)
    assert done.stderr == (f"poolguard: error: E501 in per-file-ignores of [poolguard] in "
                           f"{root / 'setup.cfg'} is no KVP code: that section is poolguard's "
                           f"alone (other tools' codes go in [flake8])\n")
    (root / "setup.cfg").write_text("[flake8]\nper-file-ignores = m.py: E501\n")
    done = poolguard("lint", "m.py", cwd=root, expect=1)
    assert done.stdout == f"m.py:{STALE_FINDING}"
