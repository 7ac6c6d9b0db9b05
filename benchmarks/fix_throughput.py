"""The cost of ``poolguard lint --fix`` on a whole SGLang source tree, beside a cold lint.

Three runs of the real CLI on fresh copies of the same tree (the copy is not timed), no cache:
a cold lint, ``--fix`` (safe fixes) and ``--fix --unsafe-fixes`` (also the #27491 resolver
rewrite). The table shows medians of wall and CPU time (user + sys of the process and its
workers) and each fix run's CPU against the lint's. A second section, in process, counts the
files libcst is asked about: fixing parses with libcst only the files that have a fix to
apply, so its cost follows those files, not the tree.

    python benchmarks/fix_throughput.py                 # SGLang 0.5.23, downloaded and cached
    python benchmarks/fix_throughput.py --tree PATH     # any folder of Python files
    python benchmarks/fix_throughput.py --smoke         # tiny generated tree: CI's smoke run
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script from a checkout


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# one timing helper and one tree resolver for every benchmark: the lint benchmark's
THROUGHPUT = _load("lint_throughput", HERE / "lint_throughput.py")
RUNS = (
    ("poolguard lint (cold)", ()),
    ("poolguard lint --fix", ("--fix",)),
    ("poolguard lint --fix --unsafe-fixes", ("--fix", "--unsafe-fixes")),
)


def parse_args(argv: list) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="folder to fix (default: the sglang release)")
    parser.add_argument("--version", default="0.5.23", help="SGLang release to fetch")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (median)")
    parser.add_argument("--jobs", type=int, default=2, help="--jobs for poolguard")
    parser.add_argument("--smoke", action="store_true", help="tiny generated tree, one run each")
    args = parser.parse_args(argv)
    if args.smoke:
        args.repeat = 1
    return args


def time_runs(tree: Path, args: argparse.Namespace) -> tuple:
    """Every timing of each run, and the files each fix run changed."""
    times: dict = {name: [] for name, _ in RUNS}
    changed: dict = {}
    poolguard = THROUGHPUT.tool("poolguard")
    for _ in range(args.repeat):
        for name, flags in RUNS:  # interleaved, so machine drift hits every run alike
            with tempfile.TemporaryDirectory(prefix="poolguard-fixbench-") as scratch:
                copy = Path(scratch) / tree.name
                shutil.copytree(tree, copy, symlinks=True)
                before = _snapshot(copy)
                command = [poolguard, "lint", "--isolated", "--no-cache", "--jobs",
                           str(args.jobs), *flags, copy.name]
                env = dict(os.environ, POOLGUARD_CACHE_DIR=scratch)
                times[name].append(THROUGHPUT.time_command(command, copy.parent, env))
                after = _snapshot(copy)
                changed[name] = sum(1 for path in before if before[path] != after.get(path))
    return times, changed


def _snapshot(tree: Path) -> dict:
    return {p: p.read_bytes() for p in tree.rglob("*.py") if p.is_file()}


def libcst_share(tree: Path) -> dict:
    """In process, per file: how many pass the pre-filter, have a fix, reach libcst."""
    from lint_rules import engine
    from lint_rules.fixes import apply

    handed: list = []
    original = apply.apply_fixes

    def counted(*args, **kwargs):
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            handed.append(time.process_time() - start)

    apply.apply_fixes = counted
    files = [p for p in sorted(tree.rglob("*.py")) if p.is_file()]
    parsed = 0
    try:
        for path in files:
            source = path.read_text(encoding="utf-8", errors="replace")
            if engine.may_match(source):
                parsed += 1
                engine.fix_source(source, unsafe=True)
    finally:
        apply.apply_fixes = original
    return {"files": len(files), "parsed": parsed, "libcst": len(handed),
            "libcst_cpu": sum(handed)}


def render(times: dict, changed: dict, share: dict) -> str:
    lint_cpu = statistics.median(t.cpu for t in times[RUNS[0][0]])
    rows = ["| run | runs | wall (median) | CPU (median) | CPU × cold lint | files changed |",
            "| --- | --- | --- | --- | --- | --- |"]
    for name, _ in RUNS:
        wall = statistics.median(t.wall for t in times[name])
        cpu = statistics.median(t.cpu for t in times[name])
        files = "—" if name == RUNS[0][0] else str(changed[name])
        rows.append(f"| {name} | {len(times[name])} | {wall:.2f} s | {cpu:.2f} s "
                    f"| {cpu / lint_cpu:.2f}× | {files} |")
    rows += ["", "| files (in process, --unsafe-fixes) | count |", "| --- | --- |",
             f"| Python files in the tree | {share['files']} |",
             f"| files past the text pre-filter (parsed with ast) | {share['parsed']} |",
             f"| files handed to libcst (a fix to apply) | {share['libcst']} |",
             f"| CPU in libcst fixing (parse, positions, transform, resolver) "
             f"| {share['libcst_cpu']:.2f} s |"]
    return "\n".join(rows) + "\n"


def main(argv: list) -> int:
    args = parse_args(argv)
    tree = THROUGHPUT.resolve_tree(args)
    print(f"tree: {tree} ({sys.version.split()[0]}, --jobs {args.jobs})\n")
    times, changed = time_runs(tree, args)
    print(render(times, changed, libcst_share(tree)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
