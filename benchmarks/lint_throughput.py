"""Lint throughput on a whole SGLang source tree: flake8 with and without the KVP plugin,
``poolguard lint`` cold and warm, and ``ruff check --select F`` as the speed anchor.

Every tool runs as a subprocess on the same tree; the table shows medians and ratios. A
second, in-process section says where poolguard's time goes: the text pre-filter's hit rate,
libcst parsing of the files it lets through, the full per-file lint, and the import cost.

    python benchmarks/lint_throughput.py                 # newest release, downloaded and cached
    python benchmarks/lint_throughput.py --tree PATH     # any folder of Python files
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_VERSION = "0.5.23"
COLD_TARGET_S = 5.0
WARM_TARGET_S = 1.0
PLUGIN_OVERHEAD_TARGET = 0.10

# flake8 runs every installed plugin whatever --select says, so "flake8 alone" must hide ours
# from plugin discovery; everything else (options, checks, parallelism) stays flake8's own.
FLAKE8_WITHOUT_KVP = (
    "import sys\n"
    "from flake8.plugins import finder\n"
    "found = finder._find_importlib_plugins\n"
    "finder._find_importlib_plugins = lambda: (\n"
    "    p for p in found() if p.package != 'sglang-poolguard')\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="folder to lint (default: the sglang release)")
    parser.add_argument("--version", default=DEFAULT_VERSION, help="SGLang release to fetch")
    parser.add_argument("--repeat", type=int, default=3, help="runs per fast tool (median)")
    parser.add_argument("--flake8-repeat", type=int, default=1,
                        help="runs per flake8 variant (about 4 min each on 2 cores)")
    parser.add_argument("--jobs", type=int, default=2, help="--jobs for flake8 and poolguard")
    parser.add_argument("--skip-flake8", action="store_true", help="skip both flake8 runs")
    return parser.parse_args(argv)


def resolve_tree(args: argparse.Namespace) -> Path:
    """The folder handed to every tool (``.../sglang`` of a downloaded release by default)."""
    if args.tree is not None:
        if not args.tree.is_dir():
            raise SystemExit(f"error: {args.tree} is not a directory")
        return args.tree.resolve()
    helper_path = Path(__file__).resolve().parents[1] / "tests" / "sglang_wheels.py"
    spec = importlib.util.spec_from_file_location("sglang_wheels", helper_path)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    try:
        return helper.source_tree(args.version) / "sglang"
    except helper.WheelError as error:
        raise SystemExit(f"error: {error}")


def tool(name: str) -> str:
    """A console script of the running interpreter's environment (what tox installs)."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"error: {name} not found next to {sys.executable} or on PATH")
    return found


def time_command(command: list[str], cwd: Path, env: dict) -> float:
    """Wall seconds of one run; exit 0/1 (clean/findings) is fine, anything else is an error."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: {' '.join(command[:3])} … exited {done.returncode}: {tail}")
    return elapsed


def run_tools(tree: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """Median inputs: wall seconds per run for each tool configuration."""
    base_env = dict(os.environ)
    cwd, target = tree.parent, tree.name  # relative paths, outside any project config
    times: dict[str, list[float]] = {}
    times["ruff check --select F"] = [
        time_command([tool("ruff"), "check", "--isolated", "--no-cache", "--select", "F",
                      "--quiet", target], cwd, base_env)
        for _ in range(args.repeat)
    ]
    cold, warm = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="poolguard-bench-") as cache:
            env = dict(base_env, POOLGUARD_CACHE_DIR=cache)
            command = [tool("poolguard"), "lint", "--isolated", "--jobs", str(args.jobs),
                       "--extend-select", "KVP004", target]
            cold.append(time_command(command, cwd, env))
            warm.append(time_command(command, cwd, env))
    times["poolguard lint (cold)"] = cold
    times["poolguard lint (warm)"] = warm
    if not args.skip_flake8:
        flake8_args = ["--isolated", f"--jobs={args.jobs}", "--extend-select", "KVP", target]
        alone, plugged = [], []
        for _ in range(args.flake8_repeat):  # interleaved, so machine drift hits both alike
            alone.append(time_command([sys.executable, "-c", FLAKE8_WITHOUT_KVP, *flake8_args],
                                      cwd, base_env))
            plugged.append(time_command([tool("flake8"), *flake8_args], cwd, base_env))
        times["flake8 defaults"] = alone
        times["flake8 defaults + KVP"] = plugged
    return times


def profile_in_process(tree: Path) -> dict[str, float]:
    """One-process breakdown of what ``poolguard lint`` pays per phase (seconds, counts)."""
    import libcst

    from lint_rules.engine import ALL_CODES, lint_source, may_match

    files = sorted(tree.rglob("*.py"))
    sources = [path.read_bytes().decode("utf-8", "replace") for path in files]
    start = time.perf_counter()
    passed = [source for source in sources if may_match(source)]
    prefilter_s = time.perf_counter() - start
    start = time.perf_counter()
    for source in passed:
        try:
            libcst.parse_module(source)
        except libcst.ParserSyntaxError:
            pass
    parse_s = time.perf_counter() - start
    start = time.perf_counter()
    findings = sum(len(lint_source(source, codes=ALL_CODES)) for source in sources)
    lint_s = time.perf_counter() - start
    return {
        "files": len(files), "mb": sum(map(len, sources)) / 1e6, "passed": len(passed),
        "passed_mb": sum(map(len, passed)) / 1e6, "findings": findings,
        "startup_s": startup_seconds(), "prefilter_s": prefilter_s, "parse_s": parse_s,
        "lint_s": lint_s,
        "plugin_s": profile_flake8_plugin(files, sources),
    }


def startup_seconds() -> float:
    """Median wall time of ``poolguard lint`` on an empty folder: interpreter, imports, config."""
    with tempfile.TemporaryDirectory(prefix="poolguard-bench-") as empty:
        env = dict(os.environ, POOLGUARD_CACHE_DIR=empty)
        command = [tool("poolguard"), "lint", "--isolated", empty]
        return statistics.median(time_command(command, Path(empty), env) for _ in range(5))


def profile_flake8_plugin(files: list[Path], sources: list[str]) -> float:
    """Seconds the flake8 plugin itself adds over the tree on one core (ast given, as in flake8)."""
    import ast

    try:
        from lint_rules.flake8_plugin import PoolGuardChecker
    except ImportError:
        return float("nan")
    total = 0.0
    for path, source in zip(files, sources):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue  # flake8 reports E999 and never calls tree plugins on such a file
        lines = source.splitlines(keepends=True)
        start = time.perf_counter()
        list(PoolGuardChecker(tree, lines, str(path)).run())
        total += time.perf_counter() - start
    return total


def print_tables(times: dict[str, list[float]], prof: dict[str, float], jobs: int) -> None:
    medians = {name: statistics.median(runs) for name, runs in times.items()}
    anchor = medians["ruff check --select F"]
    print(f"\n{prof['files']} files, {prof['mb']:.1f} MB; {os.cpu_count()} CPUs, --jobs {jobs}\n")
    print("| tool | runs | median s | min s | × ruff |\n| --- | ---: | ---: | ---: | ---: |")
    for name, runs in times.items():
        print(f"| {name} | {len(runs)} | {medians[name]:.2f} | {min(runs):.2f} | "
              f"{medians[name] / anchor:.1f} |")
    print("\n| target | measured | goal | met |\n| --- | ---: | ---: | --- |")
    cold, warm = medians["poolguard lint (cold)"], medians["poolguard lint (warm)"]
    for name, value, goal in (("cold", cold, COLD_TARGET_S), ("warm", warm, WARM_TARGET_S)):
        print(f"| poolguard {name} | {value:.2f} s | ≤ {goal:.0f} s | {_met(value, goal)} |")
    if "flake8 defaults" in medians:
        alone = medians["flake8 defaults"]
        overhead = medians["flake8 defaults + KVP"] / alone - 1
        estimate = prof["plugin_s"] / jobs / alone  # plugin CPU spread over flake8's jobs
        goal = PLUGIN_OVERHEAD_TARGET
        print(f"| plugin overhead (wall, measured) | {overhead:+.1%} | ≤ {goal:.0%} | "
              f"{_met(overhead, goal)} |")
        print(f"| plugin overhead (in-process CPU / jobs) | {estimate:+.1%} | ≤ {goal:.0%} | "
              f"{_met(estimate, goal)} |")
    print("\nwhere poolguard's time goes (one process, one core):\n")
    print("| phase | value |\n| --- | ---: |")
    print(f"| poolguard lint start-up (empty folder, wall) | {prof['startup_s']:.2f} s |")
    print(f"| pre-filter over all files | {prof['prefilter_s']:.2f} s |")
    print(f"| files let through to libcst | {prof['passed']} of {prof['files']} "
          f"({prof['passed_mb']:.1f} MB) |")
    print(f"| libcst.parse_module on those | {prof['parse_s']:.2f} s |")
    print(f"| lint_source over all files (all codes) | {prof['lint_s']:.2f} s, "
          f"{prof['findings']} findings |")
    print(f"| flake8 plugin run() over all files | {prof['plugin_s']:.2f} s |")


def _met(value: float, goal: float) -> str:
    return "yes" if value <= goal else "NO"


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    tree = resolve_tree(args)
    times = run_tools(tree, args)
    print_tables(times, profile_in_process(tree), args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
