"""Lint throughput on a whole SGLang source tree: ``ruff check --select F`` as the speed anchor,
``poolguard lint`` cold and warm, and flake8 without and with the KVP plugin, in one table.

Every tool runs as a subprocess on the same tree. ruff and poolguard (cold, then warm on the
cold run's cache) run interleaved, ``--repeat`` times, and the table shows the best of those
runs (the one least disturbed by other load on a shared machine) and the median, in wall time
and in CPU time (user + sys of the process and its workers), with ratios to ruff's best.

flake8 runs twice, interleaved: once where the KVP plugin is not installed (the interpreter
sees a copy of its site-packages without this distribution, so flake8 discovers every other
plugin exactly as installed, through its own public discovery) and once with it, every call of
the plugin's ``run()`` timed (CPU) inside flake8's workers. The plugin's share is the pair's
CPU difference against flake8 alone, and its own metered ``run()`` time against the rest of
that run. flake8 needs minutes on a whole release, so by default it runs on the attention
package only (where the plugin has the most to do); ``--flake8-whole-tree`` runs it on all.

    python benchmarks/lint_throughput.py                 # newest release, downloaded and cached
    python benchmarks/lint_throughput.py --flake8-whole-tree
    python benchmarks/lint_throughput.py --tree PATH     # any folder of Python files
    python benchmarks/lint_throughput.py --smoke         # tiny generated tree: CI's CPU smoke run
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

DEFAULT_VERSION = "0.5.23"
COLD_TARGET_X_RUFF = 2.0   # cold poolguard (package-wide) wall and CPU ≤ 2 × ruff --select F
WARM_TARGET_X_RUFF = 0.3   # warm poolguard wall ≤ 0.3 × ruff
PLUGIN_OVERHEAD_TARGET = 0.015  # flake8 + plugin CPU ≤ 1.015 × flake8 without it
SCALING_GATES = (1_000, 8_000)  # gates in one generated file: the analysis must be linear

# flake8 where this distribution is not installed: no site-packages (-S), then a copy of them
# without it (``plugin_free_site``), added the public way, .pth files and all.
FLAKE8_WITHOUT_KVP = (
    "import site, sys\n"
    "site.addsitedir(sys.argv.pop(1))\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)
DISTRIBUTION = "sglang_poolguard"  # how its metadata, editable .pth and finder are named
FLAKE8_SCOPE = "srt/layers/attention"  # the default flake8 scope, inside the tree

# flake8 with the plugin, every run() timed in CPU seconds where it runs (flake8's worker
# processes inherit the patch through fork) and appended to a log outside the timed span.
FLAKE8_METERED = (
    "import sys, time\n"
    "from lint_rules.flake8_plugin import PoolGuardChecker\n"
    "log = sys.argv.pop(1)\n"
    "original = PoolGuardChecker.run\n"
    "def run(self):\n"
    "    start = time.process_time()\n"
    "    found = list(original(self))\n"
    "    spent = time.process_time() - start\n"
    "    with open(log, 'a') as out:\n"
    "        out.write(f'{spent!r}\\n')\n"
    "    return iter(found)\n"
    "PoolGuardChecker.run = run\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="folder to lint (default: the sglang release)")
    parser.add_argument("--version", default=DEFAULT_VERSION, help="SGLang release to fetch")
    parser.add_argument("--repeat", type=int, default=3,
                        help="interleaved runs of ruff and poolguard (best and median shown)")
    parser.add_argument("--flake8-repeat", type=int, default=1,
                        help="interleaved pairs of flake8 runs (whole tree: ~7 min per pair)")
    parser.add_argument("--jobs", type=int, default=2, help="--jobs for flake8 and poolguard")
    parser.add_argument("--skip-flake8", action="store_true", help="skip the flake8 runs")
    parser.add_argument("--flake8-whole-tree", action="store_true",
                        help=f"flake8 on the whole tree, not only {FLAKE8_SCOPE}")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny generated tree, one run each, ruff optional: CI's smoke run")
    args = parser.parse_args(argv)
    if args.smoke:
        args.repeat = args.flake8_repeat = 1
    return args


def resolve_tree(args: argparse.Namespace) -> Path:
    """The folder handed to every tool (``.../sglang`` of a downloaded release by default)."""
    if args.tree is not None:
        if not args.tree.is_dir():
            raise SystemExit(f"error: {args.tree} is not a directory")
        return args.tree.resolve()
    if args.smoke:
        return smoke_tree()
    helper_path = Path(__file__).resolve().parents[1] / "tests" / "sglang_wheels.py"
    spec = importlib.util.spec_from_file_location("sglang_wheels", helper_path)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    try:
        return helper.source_tree(args.version) / "sglang"
    except helper.WheelError as error:
        raise SystemExit(f"error: {error}")


def smoke_tree() -> Path:
    """A few dozen files: the bundled example backend, copies of it, and plain modules."""
    root = Path(tempfile.mkdtemp(prefix="poolguard-smoke-")) / "pkg"
    root.mkdir()
    example = Path(__file__).resolve().parents[1] / "lint_rules" / "examples"
    for index, path in enumerate(sorted(example.glob("*.py")) * 4):
        (root / f"backend_{index}.py").write_text(path.read_text())
    for index in range(40):
        (root / f"plain_{index}.py").write_text(f"def f{index}(x):\n    return x + {index}\n")
    return root


def tool(name: str, required: bool = True) -> str | None:
    """A console script of the running interpreter's environment (what tox installs)."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found and required:
        raise SystemExit(f"error: {name} not found next to {sys.executable} or on PATH")
    return found


class Timing(NamedTuple):
    wall: float
    cpu: float  # user + sys of the child and every child it waited for (worker pools)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(command: list[str], cwd: Path, env: dict) -> Timing:
    """One run; exit 0/1 (clean/findings) is fine, anything else is an error."""
    cpu_before, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    timing = Timing(time.perf_counter() - start, _children_cpu() - cpu_before)
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: {' '.join(command[:3])} … exited {done.returncode}: {tail}")
    return timing


RUFF, COLD, WARM = "ruff check --select F", "poolguard lint (cold)", "poolguard lint (warm)"
FLAKE8_ALONE = "flake8 defaults (KVP not installed)"
FLAKE8_PLUGGED = "flake8 defaults + KVP (run() metered)"


def installed_env() -> dict:
    """The environment poolguard runs in, as an installed copy runs: pip compiles a package's
    bytecode at install, but a checkout under ``PYTHONDONTWRITEBYTECODE`` never gets any, and
    each run would compile poolguard's own modules again (0.2 s of CPU, most of a warm run).
    Its bytecode is written once here, before any run is timed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    spec = importlib.util.find_spec("lint_rules")
    if spec is not None and spec.submodule_search_locations:
        subprocess.run([sys.executable, "-m", "compileall", "-q",
                        *spec.submodule_search_locations], env=env, check=False,
                       stdout=subprocess.DEVNULL)
    return env


def run_tools(tree: Path, args: argparse.Namespace) -> tuple[dict[str, list[Timing]], float]:
    """Every run of each tool configuration, and the plugin's own CPU seconds in flake8."""
    base_env = installed_env()
    cwd, target = tree.parent, tree.name  # relative paths, outside any project config
    times: dict[str, list[Timing]] = {RUFF: [], COLD: [], WARM: []}
    ruff = tool("ruff", required=not args.smoke)
    command = [tool("poolguard"), "lint", "--isolated", "--jobs", str(args.jobs),
               "--extend-select", "KVP004", target]
    for _ in range(args.repeat):  # interleaved, so a burst of load hits every tool alike
        if ruff:
            times[RUFF].append(time_command(
                [ruff, "check", "--isolated", "--no-cache", "--select", "F", "--quiet", target],
                cwd, base_env))
        with tempfile.TemporaryDirectory(prefix="poolguard-bench-") as cache:
            env = dict(base_env, POOLGUARD_CACHE_DIR=cache)
            times[COLD].append(time_command(command, cwd, env))
            times[WARM].append(time_command(command, cwd, env))
    if not times[RUFF]:
        del times[RUFF]
    plugin_cpu = float("nan")
    if not args.skip_flake8:
        scope = target if args.flake8_whole_tree or not (tree / FLAKE8_SCOPE).is_dir() else \
            os.path.join(target, FLAKE8_SCOPE)
        plugin_cpu = run_flake8(times, cwd, scope, base_env, args)
        args.flake8_on = scope
    return times, plugin_cpu


def plugin_free_site(folder: Path) -> Path:
    """A copy (symlinks) of this interpreter's site-packages without this distribution."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in site.getsitepackages():
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            name = entry.name.replace("-", "_").lower()
            if DISTRIBUTION in name or entry.name in ("lint_rules", "runtime_guard"):
                continue  # its metadata (entry points), editable .pth / finder, its code
            link = folder / entry.name
            if not link.exists():
                link.symlink_to(entry.path)
    return folder


def flake8_plugins(command: list[str], env: dict) -> str:
    """What ``flake8 --version`` says is installed, run the way the timed run is."""
    done = subprocess.run([*command, "--version"], env=env, capture_output=True, text=True)
    return done.stdout.strip()


def run_flake8(times: dict, cwd: Path, target: str, env: dict, args) -> float:
    """flake8 alone (plugin not installed) and flake8 + plugin with run() metered, in pairs."""
    flake8_args = ["--isolated", f"--jobs={args.jobs}", "--extend-select", "KVP", target]
    alone, plugged, plugin_cpu = [], [], []
    with tempfile.TemporaryDirectory(prefix="poolguard-bench-") as scratch:
        view = plugin_free_site(Path(scratch) / "site")  # mkdir below, before the links
        without_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # no checkout either
        # -I: not even the current folder (a wheel build leaves an .egg-info in a checkout)
        without = [sys.executable, "-I", "-S", "-c", FLAKE8_WITHOUT_KVP, str(view)]
        with_plugin = [sys.executable, "-c", FLAKE8_METERED]
        shown = "sglang-poolguard"  # how flake8 --version names the plugin's distribution
        if shown in flake8_plugins(without, without_env) or shown not in flake8_plugins(
                [*with_plugin, os.devnull], env):
            raise SystemExit("error: could not run flake8 both without and with the KVP plugin")
        for _ in range(args.flake8_repeat):  # interleaved, so machine drift hits both alike
            alone.append(time_command([*without, *flake8_args], cwd, without_env))
            log = Path(scratch) / "plugin-cpu.txt"
            log.write_text("")
            plugged.append(time_command([*with_plugin, str(log), *flake8_args], cwd, env))
            plugin_cpu.append(sum(float(line) for line in log.read_text().split()))
    times[FLAKE8_ALONE], times[FLAKE8_PLUGGED] = alone, plugged
    return min(plugin_cpu)


class ParseMeter:
    """Counts calls, characters and CPU seconds of one parser function while the lint runs."""

    def __init__(self, module, name: str) -> None:
        self.module, self.name, self.original = module, name, getattr(module, name)
        self.calls, self.chars, self.seconds = 0, 0, 0.0

    def __enter__(self) -> "ParseMeter":
        def metered(source, *args, **kwargs):
            start = time.process_time()
            try:
                return self.original(source, *args, **kwargs)
            finally:
                self.seconds += time.process_time() - start
                self.calls += 1
                self.chars += len(source)

        setattr(self.module, self.name, metered)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.module, self.name, self.original)


def profile_in_process(tree: Path) -> dict[str, float]:
    """One-process breakdown of poolguard's CPU seconds per phase, and file counts."""
    import ast
    import builtins

    import libcst

    from lint_rules.engine import DEFAULT_CODES, lint_source, may_match

    files = sorted(tree.rglob("*.py"))
    sources = [path.read_bytes().decode("utf-8", "replace") for path in files]
    start = time.process_time()
    passed = [source for source in sources if may_match(source)]
    prefilter_s = time.process_time() - start
    # The CLI's default codes (KVP900 included: files past the text filter get an ast check).
    with ParseMeter(libcst, "parse_module") as cst_meter, ParseMeter(ast, "parse") as ast_meter, \
            ParseMeter(builtins, "compile") as compile_meter:
        start = time.process_time()
        findings = sum(len(lint_source(source, codes=DEFAULT_CODES)) for source in sources)
        lint_s = time.process_time() - start
    return {
        "files": len(files), "mb": sum(map(len, sources)) / 1e6, "passed": len(passed),
        "passed_mb": sum(map(len, passed)) / 1e6, "findings": findings,
        "startup": startup_seconds(), "prefilter_s": prefilter_s, "lint_s": lint_s,
        "compile": compile_meter, "ast": ast_meter, "cst": cst_meter,
        "plugin_s": profile_flake8_plugin(files, sources),
        "scaling": scaling_seconds(),
    }


def gated_file(gates: int) -> str:
    """One backend with a stale flag and ``gates`` methods gating on it and on a copy of it."""
    lines = ["class B(AttentionBackend):", "    def __init__(self, model_runner):",
             "        pool = model_runner.token_to_kv_pool",
             "        self.use_sliding_window_kv_pool = isinstance(pool, SWAKVPool)"]
    for index in range(gates // 2):
        lines += [f"        self.a{index} = self.use_sliding_window_kv_pool",
                  f"        if self.a{index} and self.use_sliding_window_kv_pool:",
                  f"            self.x{index} = {index}"]
    return "\n".join(lines) + "\n"


def scaling_seconds() -> dict:
    """CPU seconds of ``lint_source`` on one file with each count of gates."""
    from lint_rules.engine import lint_source

    found = {}
    for gates in SCALING_GATES:
        source = gated_file(gates)
        start = time.process_time()
        lint_source(source)
        found[gates] = time.process_time() - start
    return found


def startup_seconds() -> Timing:
    """Median ``poolguard lint`` on an empty folder: interpreter, imports, config."""
    with tempfile.TemporaryDirectory(prefix="poolguard-bench-") as empty:
        env = dict(installed_env(), POOLGUARD_CACHE_DIR=empty)
        command = [tool("poolguard"), "lint", "--isolated", empty]
        runs = [time_command(command, Path(empty), env) for _ in range(5)]
    return Timing(*(statistics.median(values) for values in zip(*runs)))


def profile_flake8_plugin(files: list[Path], sources: list[str]) -> float:
    """CPU seconds the flake8 plugin itself adds over the tree (flake8 hands it the ast)."""
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
        start = time.process_time()
        list(PoolGuardChecker(tree, lines, str(path)).run())
        total += time.process_time() - start
    return total


def _median(runs: list[Timing]) -> Timing:
    return Timing(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs))


def _best(runs: list[Timing]) -> Timing:
    return Timing(min(r.wall for r in runs), min(r.cpu for r in runs))


# A cold package-wide run with its phases metered: what the parent does before the workers
# start and after they end, and each worker's summaries (prepare) and files' analysis, in CPU
# seconds where they run (the workers are forked: the patches reach them; each keeps its
# name, so the pool pickles it by reference), one JSON line each.
PACKAGE_METERED = (
    "import json, os, sys, time\n"
    "from lint_rules import runner\n"
    "log = sys.argv.pop(1)\n"
    "def note(**row):\n"
    "    with open(log, 'a') as out:\n"
    "        out.write(json.dumps(dict(row, pid=os.getpid())) + '\\n')\n"
    "def metered(name, kind):\n"
    "    original = getattr(runner, name)\n"
    "    def run(*args):\n"
    "        start = time.process_time()\n"
    "        try:\n"
    "            return original(*args)\n"
    "        finally:\n"
    "            note(kind=kind, cpu=time.process_time() - start)\n"
    "    run.__qualname__, run.__module__ = name, runner.__name__\n"
    "    setattr(runner, name, run)\n"
    "metered('_prepare', 'prepare')\n"
    "metered('analyse', 'file')\n"
    "import ast\n"
    "parse = ast.parse\n"
    "def parsed(source, *args, **kwargs):\n"
    "    start = time.process_time()\n"
    "    try:\n"
    "        return parse(source, *args, **kwargs)\n"
    "    finally:\n"
    "        note(kind='parse', cpu=time.process_time() - start, chars=len(source))\n"
    "ast.parse = parsed\n"
    "start_all = runner._analyse_all\n"
    "def analyse_all(*args):\n"
    "    note(kind='parent_before', cpu=time.process_time(), wall=time.perf_counter() - T0)\n"
    "    mark = time.perf_counter()\n"
    "    try:\n"
    "        return start_all(*args)\n"
    "    finally:\n"
    "        note(kind='workers_wall', wall=time.perf_counter() - mark)\n"
    "runner._analyse_all = analyse_all\n"
    "T0 = time.perf_counter()\n"
    "from lint_rules.cli import main\n"
    "code = main()\n"
    "note(kind='parent_all', cpu=time.process_time(), wall=time.perf_counter() - T0)\n"
    "sys.exit(code)\n"
)


def profile_package_run(tree: Path, jobs: str) -> dict:
    """One metered cold run of ``poolguard lint`` on the tree (``PACKAGE_METERED``)."""
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "phases.jsonl"
        env = dict(os.environ, POOLGUARD_CACHE_DIR=str(Path(scratch) / "cache"))
        subprocess.run([sys.executable, "-c", PACKAGE_METERED, str(log), "lint", "--jobs", jobs,
                        str(tree)], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        rows = [json.loads(line) for line in log.read_text().splitlines()]
    parent = {row["kind"]: row for row in rows if row["kind"].startswith(("parent", "workers"))}
    workers: dict[int, dict] = {}
    parses = [row for row in rows if row["kind"] == "parse"]
    parent["parse"] = {"cpu": sum(row["cpu"] for row in parses), "count": len(parses),
                       "chars": sum(row["chars"] for row in parses)}
    for row in rows:
        if row["kind"] in ("prepare", "file"):
            worker = workers.setdefault(row["pid"], {"prepare": 0.0, "file": 0.0, "files": 0})
            worker[row["kind"]] += row["cpu"]
            worker["files"] += row["kind"] == "file"
    return {"parent": parent, "workers": list(workers.values())}


def print_package_phases(phases: dict, ruff: Timing | None = None) -> None:
    parent = phases["parent"]
    if not {"parent_before", "workers_wall", "parent_all"} <= parent.keys():
        print("\n(the metered package run did not finish: no phase table)")
        return
    before, after = parent["parent_before"], parent["parent_all"]
    print("\nwhere a cold package-wide run goes (one metered run, --jobs as above):\n")
    print("| phase | wall s | CPU s |\n| --- | ---: | ---: |")
    print(f"| parent: start-up, reading, hashing, pre-filter, class graph | "
          f"{before['wall']:.2f} | {before['cpu']:.2f} |")
    print(f"| workers, from the first fork to the last result | "
          f"{parent['workers_wall']['wall']:.2f} | |")
    for number, worker in enumerate(phases["workers"], 1):
        print(f"| worker {number}: its family's summaries (prepare) | | {worker['prepare']:.2f} |")
        print(f"| worker {number}: its {worker['files']} files' analysis | | "
              f"{worker['file']:.2f} |")
    rest_wall = after["wall"] - before["wall"] - parent["workers_wall"]["wall"]
    print(f"| parent: results, cache, output | {rest_wall:.2f} | "
          f"{after['cpu'] - before['cpu']:.2f} |")
    parse = parent["parse"]
    print(f"| of the workers' CPU: ast.parse of the {parse['count']} modules a package-wide "
          f"run reads ({parse['chars'] / 1e6:.1f} M characters) | | {parse['cpu']:.2f} |")
    if ruff is not None:  # what no analysis can go below: the parent's reading and the parse
        floor = before["cpu"] + parse["cpu"]
        print(f"\nfloor before any analysis (parent before the workers + those parses): "
              f"{floor:.2f} CPU s = {floor / ruff.cpu:.2f} × ruff's best CPU "
              f"(cold goal {COLD_TARGET_X_RUFF} ×)")


def print_tables(times: dict[str, list[Timing]], prof: dict, args, load: tuple,
                 plugin_cpu: float) -> None:
    best = {name: _best(runs) for name, runs in times.items()}
    anchor = best.get(RUFF)
    scope = getattr(args, "flake8_on", "nothing")
    print(f"\n{prof['files']} files, {prof['mb']:.1f} MB; {os.cpu_count()} CPUs, --jobs "
          f"{args.jobs}; flake8 on {scope}; 1-min load average {load[0]:.1f} before, "
          f"{load[1]:.1f} after\n")
    print("| tool | runs | best wall s | median wall s | best CPU s | median CPU s "
          "| wall × ruff | CPU × ruff |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, runs in times.items():
        median = _median(runs)
        print(f"| {name} | {len(runs)} | {best[name].wall:.2f} | {median.wall:.2f} | "
              f"{best[name].cpu:.2f} | {median.cpu:.2f} | "
              f"{_ratio(best[name].wall, anchor and anchor.wall)} | "
              f"{_ratio(best[name].cpu, anchor and anchor.cpu)} |")
    print_targets(best, plugin_cpu)
    print_profile(prof)


def _ratio(value: float, anchor) -> str:
    return f"{value / anchor:.2f}" if anchor else "n/a"


def print_targets(best: dict[str, Timing], plugin_cpu: float) -> None:
    """Each target against the best run of each tool (ratios of bests: fair under load)."""
    print("\n| target | measured | goal | met |\n| --- | ---: | ---: | --- |")
    cold, warm, anchor = best[COLD], best[WARM], best.get(RUFF)
    if anchor:
        for name, value, goal in (("poolguard cold wall / ruff wall", cold.wall / anchor.wall,
                                   COLD_TARGET_X_RUFF),
                                  ("poolguard cold CPU / ruff CPU", cold.cpu / anchor.cpu,
                                   COLD_TARGET_X_RUFF),
                                  ("poolguard warm wall / ruff wall", warm.wall / anchor.wall,
                                   WARM_TARGET_X_RUFF)):
            print(f"| {name} | {value:.2f} × | ≤ {goal:g} × | {_met(value, goal)} |")
    plugged, alone = best.get(FLAKE8_PLUGGED), best.get(FLAKE8_ALONE)
    if plugged is None or alone is None:
        return
    added = plugged.cpu / alone.cpu - 1
    print(f"| flake8 plugin: CPU with / without it, same benchmark run | {plugged.cpu:.1f} s / "
          f"{alone.cpu:.1f} s = {added:+.1%} | ≤ {PLUGIN_OVERHEAD_TARGET:.1%} | "
          f"{_met(added, PLUGIN_OVERHEAD_TARGET)} |")
    rest = plugged.cpu - plugin_cpu
    share = plugin_cpu / rest if rest > 0 else float("nan")
    print(f"| (cross-check) the plugin's metered run() / the rest of that run's CPU | "
          f"{plugin_cpu:.2f} s / {rest:.1f} s = {share:+.1%} | | |")


def print_profile(prof: dict) -> None:
    print("\nwhere poolguard's CPU goes (one process):\n")
    print("| phase | value |\n| --- | ---: |")
    startup = prof["startup"]
    print(f"| poolguard lint start-up (empty folder) | {startup.wall:.2f} s wall, "
          f"{startup.cpu:.2f} s CPU |")
    print(f"| text pre-filter over all files | {prof['prefilter_s']:.2f} s |")
    print(f"| files past the text pre-filter | {prof['passed']} of {prof['files']} "
          f"({prof['passed_mb']:.1f} MB) |")
    ast_meter, compile_meter = prof["ast"], prof["compile"]
    # ast.parse calls compile() once itself: what remains is the syntax-only check
    syntax_only = (compile_meter.calls - ast_meter.calls, compile_meter.chars - ast_meter.chars,
                   max(compile_meter.seconds - ast_meter.seconds, 0.0))
    phases = (("compile() syntax check (outside ast.parse)", *syntax_only),
              ("ast.parse (ast gate)", ast_meter.calls, ast_meter.chars, ast_meter.seconds),
              ("libcst.parse_module (files let through to libcst)", prof["cst"].calls,
               prof["cst"].chars, prof["cst"].seconds))
    for label, calls, chars, seconds in phases:
        print(f"| {label} | {calls} files, {chars / 1e6:.1f} MB, {seconds:.2f} s |")
    rest = prof["lint_s"] - sum(phase[3] for phase in phases)
    print(f"| rules, metadata, reporting (the rest of lint_source) | {rest:.2f} s |")
    print(f"| lint_source over all files, default codes | {prof['lint_s']:.2f} s, "
          f"{prof['findings']} findings |")
    print(f"| flake8 plugin run() over all files (ast given) | {prof['plugin_s']:.2f} s |")
    small, large = (prof["scaling"][g] for g in SCALING_GATES)
    ratio = SCALING_GATES[1] / SCALING_GATES[0]
    print(f"| one file, {SCALING_GATES[0]:,} gates → {SCALING_GATES[1]:,} gates "
          f"({ratio:g} × the size) | {small:.2f} s → {large:.2f} s ({large / small:.1f} ×) |")


def _met(value: float, goal: float) -> str:
    return "yes" if value <= goal else "NO"


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    tree = resolve_tree(args)
    load_before = os.getloadavg()[0]
    times, plugin_cpu = run_tools(tree, args)
    profile = profile_in_process(tree)
    print_tables(times, profile, args, (load_before, os.getloadavg()[0]), plugin_cpu)
    print_package_phases(profile_package_run(tree, str(args.jobs)), _best(times[RUFF]) if (
        times.get(RUFF)) else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
