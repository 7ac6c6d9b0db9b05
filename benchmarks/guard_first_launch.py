"""First-launch cost of the generic guard: the lint's analysis of a backend class's code.

The generic check (``runtime_guard.generic``) reads, at the first launch of a class no table
row names, which of its attributes its code decides from an SWA pool test
(``runtime_guard.provenance``). That is the one-off cost this script measures, for every SGLang
backend class the generic check covers on this host:

* *alone*: the class first in a fresh state (every provenance cache emptied before it);
* *in turn*: all classes one after another in one process, as a server building several
  backends pays it (modules already read for an earlier class are not read again).

Run: ``python benchmarks/guard_first_launch.py [--top N]``. Prints a table in ms (medians of
``--repeats`` alone-runs) and the totals. Needs torch and SGLang.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runtime_guard from this checkout


def _classes() -> list:
    from runtime_guard import generic
    from runtime_guard.demo import scenarios as sc

    sc.sglang()
    tests = str(Path(__file__).resolve().parents[1] / "tests" / "runtime")
    sys.path.insert(0, tests)
    import kernel_shim

    kernel_shim.install()
    return [cls for cls, _ in generic.generic_classes(generic.installed_backend_classes())]


def _forget() -> None:
    """Empty every cache of ``runtime_guard.provenance`` (whatever its version names them)."""
    from runtime_guard import provenance

    for name, value in vars(provenance).items():
        if isinstance(value, dict) and not name.startswith("__"):
            value.clear()


def _ms(cls, base) -> float:
    from runtime_guard import provenance

    start = time.perf_counter()
    provenance.proven(cls, base)
    return (time.perf_counter() - start) * 1e3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=12, help="rows shown (the costliest)")
    args = parser.parse_args(argv)
    classes = _classes()
    from runtime_guard.generic import _base_of

    alone = {}
    for cls in classes:
        samples = []
        for _ in range(args.repeats):
            _forget()
            samples.append(_ms(cls, _base_of(cls)))
        alone[cls] = statistics.median(samples)
    _forget()
    in_turn = {cls: _ms(cls, _base_of(cls)) for cls in classes}
    print(f"first launch: lint analysis of the class's code, ms ({len(classes)} classes the "
          "generic check covers)")
    print("| class | module | alone | in turn |")
    print("| --- | --- | ---: | ---: |")
    for cls in sorted(classes, key=alone.get, reverse=True)[: args.top]:
        print(f"| {cls.__name__} | {cls.__module__.rsplit('.', 1)[-1]} | {alone[cls]:.1f} | "
              f"{in_turn[cls]:.1f} |")
    print(f"total alone {sum(alone.values()):.0f} ms, in turn {sum(in_turn.values()):.0f} ms, "
          f"worst class {max(alone.values(), default=0):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
