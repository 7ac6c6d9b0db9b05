"""The plugin entry point with the guard off: SGLang's loader imports it in every process, so
it reads the environment and imports nothing else of the guard (the README's "nothing is
imported or patched"); with the guard on it goes on to the hooks."""
from __future__ import annotations

import json
import os
import subprocess
import sys

# what the entry point itself needs to read the switches, and nothing more
ENTRY_MODULES = {"runtime_guard", "runtime_guard.config", "runtime_guard.entry",
                 "runtime_guard.errors"}

CHILD = (
    "import json, sys\n"
    "from importlib.metadata import entry_points\n"
    "[entry] = [e for e in entry_points(group='sglang.srt.plugins') if e.name == 'poolguard']\n"
    "entry.load()()\n"
    "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'runtime_guard')))\n"
)


def _imported(**env) -> set:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_POOLGUARD")}
    done = subprocess.run([sys.executable, "-c", CHILD], env={**environ, **env},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_guard_off_imports_only_what_reads_the_switches():
    for env in ({}, {"SGLANG_POOLGUARD": "0"}, {"SGLANG_POOLGUARD": "off"}):
        assert _imported(**env) == ENTRY_MODULES, env


def test_a_bad_switch_still_stops_with_one_line():
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_POOLGUARD")}
    environ["SGLANG_POOLGUARD"] = "maybe"
    done = subprocess.run([sys.executable, "-c", CHILD], env=environ, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert done.stderr.strip().startswith("poolguard: ") and "\n" not in done.stderr.strip()
