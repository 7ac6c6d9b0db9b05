"""Exit codes and option values through the real CLI (issue 16, class 9).

0 clean, 1 findings, 2 error, whatever happens to stderr or stdout; every environment value
and option is validated once, by one parser shared with the flake8 plugin, and refused with
one clear line instead of being accepted and failing later.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from clirun import STALE, poolguard, write

CLI = f"{sys.executable} -m lint_rules.cli"
ERROR_CASES = ["lint missing.py", "lint --select XYZ9 s.py", "lint --kvp-pool-attr class s.py",
               "explain KVP999", "lint --bogus-flag"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write(tmp_path_factory.mktemp("tree"), {"s.py": STALE})


def _shell(script: str, cwd, env=None):
    return subprocess.run(["sh", "-c", script], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "POOLGUARD_CACHE_DIR": str(cwd / ".cache"),
                               **(env or {})}, timeout=300)


def test_errors_exit_2_whatever_stderr_is(tree):
    """Closed stderr, a full one (/dev/full) and a closed stdout: the status never changes;
    one shell runs every case, printing each status."""
    sinks = ["2>&-"] + (["2>/dev/full"] if os.path.exists("/dev/full") else [])
    lines = [f"{CLI} {case} >/dev/null {sink}; echo $?" for case in ERROR_CASES for sink in sinks]
    lines += [f"{CLI} lint s.py >/dev/null 2>&-; echo $?",  # findings stay 1
              f"{CLI} lint s.py >&-; echo $?",  # stdout closed: the report is lost, an error
              f"{CLI} lint --isolated --select KVP004 s.py 2>&-; echo $?"]  # clean stays 0
    if os.path.exists("/dev/full"):
        lines.append(f"{CLI} lint s.py >/dev/full; echo $?")
    done = _shell("\n".join(lines), tree)
    codes = done.stdout.split()
    assert codes == ["2"] * (len(ERROR_CASES) * len(sinks)) + ["1", "2", "0"] + (
        ["2"] if os.path.exists("/dev/full") else []), done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("value", ["1e10", "nan", "inf", "-inf", "-1", "0", "1e400",
                                   "9" * 400, "ten", "0x10", " "])
def test_a_parse_timeout_out_of_range_is_refused_up_front(tree, value):
    env = {"POOLGUARD_PARSE_TIMEOUT": value}
    done = poolguard("lint", "--no-cache", "s.py", cwd=tree, env=env)
    if value.strip():
        assert done.returncode == 2 and "POOLGUARD_PARSE_TIMEOUT" in done.stderr, done.stderr
        assert "internal error" not in done.stderr
    else:  # blank means unset
        assert done.returncode == 1


def test_accepted_parse_timeouts_work(tree):
    for value in ("0.5", "86400", "1_0"):
        poolguard("lint", "--no-cache", "s.py", cwd=tree, env={"POOLGUARD_PARSE_TIMEOUT": value},
                  expect=1)


@pytest.mark.parametrize("option", ["--write-baseline", "--baseline", "--config"])
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_file_name_is_refused_not_ignored(tree, option, value):
    done = poolguard("lint", option, value, "s.py", cwd=tree, expect=2)
    assert f"{option} needs a file name" in done.stderr
    assert "KVP001" not in done.stdout  # no plain lint ran instead


BAD_VALUES = [("--kvp-pool-attr", "class"), ("--kvp-pool-attr", "1bad name"),
              ("--kvp-pool-attr", "a.b"), ("--kvp-pool-attr", "None"),
              ("--kvp-backend-bases", "Ok, 2x"), ("--kvp-backend-bases", "mod.class"),
              ("--kvp-swa-flags", "is-swa"), ("--kvp-swa-flags", "lambda")]


@pytest.mark.parametrize("option, value", BAD_VALUES)
def test_bad_option_values_are_refused_by_cli_config_and_flake8(tmp_path, option, value):
    """One validation: the flag, the config key and flake8 all refuse the same value."""
    write(tmp_path, {"s.py": STALE})
    flag = poolguard("lint", "--isolated", option, value, "s.py", cwd=tmp_path, expect=2)
    key = option[2:]
    assert flag.stderr.startswith(f"poolguard: error: {key} must be"), flag.stderr
    write(tmp_path, {"setup.cfg": f"[flake8]\n{key} = {value}\n"})
    config = poolguard("lint", "s.py", cwd=tmp_path, expect=2)
    assert config.stderr == flag.stderr
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "KVP", "s.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert flake8.returncode == 1 and "Traceback" not in flake8.stderr
    assert f"sglang-poolguard: {key} must be" in flake8.stdout, flake8.stdout
    assert "KVP001" not in flake8.stdout


def test_valid_non_ascii_and_soft_keyword_names_are_accepted_everywhere(tmp_path):
    source = STALE.replace("DemoAttnBackend(AttentionBackend)", "Démo(Bäse)")
    write(tmp_path, {"s.py": source, "setup.cfg": "[flake8]\nkvp-backend-bases = Bäse\n"
                                                  "kvp-pool-attr = match\n"})
    done = poolguard("lint", "s.py", cwd=tmp_path, expect=1)
    assert "s.py:3:9: KVP001" in done.stdout
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "KVP", "s.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "s.py:3:9: KVP001" in flake8.stdout, flake8.stdout + flake8.stderr
