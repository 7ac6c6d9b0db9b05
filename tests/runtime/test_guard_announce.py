"""The plugin says, in one line per load, that the guard is on: mode, action, fix, classes."""

from __future__ import annotations

import re

from test_guard_plugin import _expected_classes, observed, poolguard_lines, run_child

ANNOUNCE = re.compile(
    r"poolguard: (guard .*), fix (on|off): (\d+) of (\d+) backend classes hooked$")


def test_each_load_announces_the_guard_once_and_off_says_nothing():
    from runtime_guard.backends import BACKENDS

    done = run_child("announce")
    assert observed(done) == {"loads": 3}
    per_load = "\n".join(line for line in done.stderr.splitlines()
                         if line.startswith("runtime_guard|")).split("runtime_guard| load ")[1:]
    announced = [[m.groups() for m in map(ANNOUNCE.search, chunk.splitlines()) if m]
                 for chunk in per_load]
    off, fix_alone, bounds = announced
    assert off == []  # off: nothing is imported, so nothing is said either
    assert [a[:2] for a in fix_alone] == [("guard off", "on")]
    (mode, fix, hooked, total), = bounds
    assert (mode, fix, int(total)) == ("guard bounds (log)", "off", len(BACKENDS))
    assert int(hooked) >= len(_expected_classes())  # every class that imports here
    assert int(fix_alone[0][2]) == int(hooked)
    assert len(poolguard_lines(done)) >= 2
