"""A small mutation run: does the test suite notice targeted bugs in the guard and the lint?

Each mutant is one textual change (a weakened identity test, an off-by-one, a dropped scope
or check) applied to a temporary copy of the repository; the tests that cover that code run
against the copy (``PYTHONPATH`` puts it first, so subprocesses of the CLI and flake8 use it
too). A mutant is *killed* when those tests fail, *live* when they pass, *n/a* when its
source text no longer exists (the code moved on: update the mutant). Prints a table and the
score killed / (killed + live).

    python benchmarks/mutation.py                # all mutants
    python benchmarks/mutation.py --only a b     # some of them, by name
    python benchmarks/mutation.py --list         # names and targets
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNTIME_TESTS = ("tests/runtime/test_guard_checks.py", "tests/runtime/test_every_backend.py",
                 "tests/runtime/test_guard_plugin.py", "tests/runtime/test_guard_paths.py",
                 "tests/runtime/test_guard_fix.py", "tests/runtime/test_resolvers.py")
BOUNDS_TESTS = ("tests/runtime/test_guard_bounds.py",)
PATH_TESTS = ("tests/runtime/test_guard_paths.py",)
FIX_TESTS = ("tests/runtime/test_guard_fix.py",)
RESOLVER_TESTS = ("tests/runtime/test_resolvers.py",)
_PLUGIN = "tests/runtime/test_guard_plugin.py::test_"
SUBCLASS_TESTS = (_PLUGIN + "a_subclass_shipping_its_own_launches_is_found_hooked_and_listed",)
ONCE_TESTS = (_PLUGIN + "hooks_are_registered_once_through_repeated_installs_and_other_plugins",)
RULE_TESTS = ("tests/lint/test_rules.py", "tests/lint/test_examples.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: tuple
    what: str


MUTANTS = (
    # -- runtime guard: checks
    Mutant("a", "runtime_guard/checks.py",
           "if pool is not expected and not _frozen_draft_outside_view",
           "if (pool is None) != (expected is None) and not _frozen_draft_outside_view",
           RUNTIME_TESTS,
           "identity test weakened to a presence test (another SWAKVPool passes)"),
    Mutant("flag-check-off", "runtime_guard/checks.py",
           "if flag is None or bool(flag) == active_is_swa:", "if True:", RUNTIME_TESTS,
           "flag consistency never checked"),
    Mutant("mapping-by-type", "runtime_guard/checks.py",
           "cached is not None and cached is not expected",
           "cached is not None and type(cached) is not type(expected)", RUNTIME_TESTS,
           "cached full->SWA mapping compared by type, not identity"),
    Mutant("route-none-only", "runtime_guard/checks.py",
           'swa_table is None or swa_table is getattr(metadata, "page_table", None)',
           "swa_table is None", RUNTIME_TESTS,
           "an SWA layer handed the full page table passes"),
    Mutant("swa-only-checks-inverted", "runtime_guard/checks.py",
           "    if active_is_swa:\n        return _mapping_problem",
           "    if not active_is_swa:\n        return _mapping_problem", RUNTIME_TESTS,
           "mapping and routing checked for the wrong pool kind"),
    # -- runtime guard: bounds
    Mutant("rows-vs-batch", "runtime_guard/bounds.py",
           "    if batch > rows:\n        return _too_many_requests",
           "    if batch > rows + 1:\n        return _too_many_requests", BOUNDS_TESTS,
           "one request more than table rows passes the host check"),
    Mutant("row-width", "runtime_guard/bounds.py", "if most > width:",
           "if most > width + 1:", BOUNDS_TESTS, "a seq_len one page past its row passes"),
    Mutant("fast-path-off-by-one", "runtime_guard/bounds.py",
           "    if low >= 0 and high < num_pages:\n        return None\n    low, high",
           "    if low >= 0 and high <= num_pages:\n        return None\n    low, high",
           BOUNDS_TESTS, "page id == page count passes the fast path"),
    Mutant("floor-pages", "runtime_guard/bounds.py",
           "((lens + (page_size - 1)) // page_size)", "(lens // page_size)", BOUNDS_TESTS,
           "pages read rounded down: the last partial page is never checked"),
    Mutant("mask-off-by-one", "runtime_guard/bounds.py",
           "columns.unsqueeze(0) >= _pages_read", "columns.unsqueeze(0) > _pages_read",
           BOUNDS_TESTS, "one unread column treated as read (false alarms on padding)"),
    # -- runtime guard: the bounds cache per forward (guardgen)
    Mutant("bounds-key-without-table", "runtime_guard/hooks.py",
           "key = (id(table), id(pool), is_swa)", "key = (id(pool), is_swa)", BOUNDS_TESTS,
           "a new table over the same pool is not re-checked within one forward"),
    Mutant("bounds-reset-skips-steps", "runtime_guard/hooks.py",
           "    for child in list(steps) + [inner for _, inner in inner_backends(backend, spec)]:",
           "    for child in [inner for _, inner in inner_backends(backend, spec)]:", BOUNDS_TESTS,
           "a multi-step draft's per-step caches survive into the next forward"),
    Mutant("bounds-cache-never-reset", "runtime_guard/hooks.py",
           "    backend.__dict__[_CHECKED] = set()\n    children",
           "    backend.__dict__.setdefault(_CHECKED, set())\n    children", BOUNDS_TESTS,
           "a table checked once is never checked again"),
    # -- runtime guard: hooks and the fixed resolver
    Mutant("c", "runtime_guard/hooks.py",
           "    record_runner(backend, model_runner)\n    if _config.fix:",
           "    pass\n    if _config.fix:", RUNTIME_TESTS,
           "guard_init records nothing"),
    Mutant("bounds-hook-off", "runtime_guard/hooks.py",
           "if _config.bounds and layer is not None:", "if False:",
           (*RUNTIME_TESTS, *BOUNDS_TESTS), "bounds mode never checks a launch"),
    Mutant("log-instead-of-raise", "runtime_guard/hooks.py",
           'if _config.action == "raise":', 'if _config.action == "never":',
           RUNTIME_TESTS, "a violation is only logged under the default action"),
    Mutant("resolver-eagle", "runtime_guard/fix.py",
           "if facts is None or (facts.is_draft and not facts.frozen_kv):",
           "if facts is None:", RUNTIME_TESTS,
           "fixed resolver hands an EAGLE draft the allocator's SWA pool"),
    # -- runtime guard: paths beyond the backend's own attributes (issue 15), the fix's reach
    # and the plugin's idempotence (issue 16)
    Mutant("translator-unchecked", "runtime_guard/checks.py",
           "problem = translator_problem(backend, active, layer_id)", "problem = None", PATH_TESTS,
           "the runner's KVIndexTranslator is never compared with the active pool"),
    Mutant("bound-copy-by-presence", "runtime_guard/checks.py",
           "        if belongs_to(method, expected):",
           "        if (method is None) == (expected is None):", PATH_TESTS,
           "a bound-method copy of another pool passes (presence, not identity)"),
    Mutant("inner-pool-unchecked", "runtime_guard/checks.py",
           "if inner_pool is not None and inner_pool is not active:", "if False:", PATH_TESTS,
           "a wrapper's inner backend reading another pool passes"),
    Mutant("fix-no-propagation", "runtime_guard/fix.py",
           "            inner.token_to_kv_pool = active", "            pass", PATH_TESTS,
           "the fix leaves a wrapper's inner backends on their own pool"),
    Mutant("fix-bound-none", "runtime_guard/fix.py",
           "getattr(pool, method) if flag else None", "None", PATH_TESTS,
           "the fix sets FlashAttention's swa_translate to None (the old behaviour)"),
    Mutant("write-slots-unchecked", "runtime_guard/hooks.py",
           "    if _config.bounds and result is not None:", "    if False:", PATH_TESTS,
           "KV write buffers handed out before the launch are never bounds-checked"),
    Mutant("multi-step-first-only", "runtime_guard/fix.py",
           "        for child in getattr(backend, spec.children, None) or ():\n"
           "            follow_active_pool(child, forward_batch)",
           "        for child in (getattr(backend, spec.children, None) or ())[:1]:\n"
           "            follow_active_pool(child, forward_batch)", FIX_TESTS,
           "the fix reaches only the first per-step backend of a multi-step draft"),
    Mutant("translating-mapping-kept", "runtime_guard/fix.py",
           "        mapping = None  # a translating", "        pass  # a translating", FIX_TESTS,
           "the fix caches a token mapping for a translating (unified) pool"),
    Mutant("swa-by-type-mro", "runtime_guard/pools.py",
           "obj is not None and isinstance(obj, cls)",
           "obj is not None and cls in type(obj).__mro__", RESOLVER_TESTS,
           "SWA pools recognised by type(pool).__mro__: spec'd mocks and proxies are not"),
    Mutant("install-twice", "runtime_guard/plugin.py",
           "if key in _registered or _already_applied(", "if _already_applied(", ONCE_TESTS,
           "install() twice before the hooks are applied registers every hook twice"),
    Mutant("other-plugin-hides-hook", "runtime_guard/plugin.py",
           '        current = getattr(current, "__wrapped__", None)', "        current = None",
           ONCE_TESTS, "a hook under another plugin's wrapper is registered again"),
    Mutant("no-subclass-discovery", "runtime_guard/plugin.py",
           "            found.append((spec, cls))", "            pass", SUBCLASS_TESTS,
           "subclasses overriding launch methods are not hooked"),
    Mutant("hand-launch-list", "runtime_guard/plugin.py", "_launches.append(found or LAUNCH)",
           "_launches.append(LAUNCH)", SUBCLASS_TESTS,
           "launch methods the base dispatches (forward_mixed) are not hooked"),
    # -- lint rules, noqa, CLI
    Mutant("b", "lint_rules/rules/_facts.py",
           "return [node for node in classes if node.name in names]", "return classes",
           RULE_TESTS, "KVP003 (every rule) without the backend-class scope"),
    Mutant("noqa-prefix", "lint_rules/noqa.py",
           "return not codes or code in codes or code.startswith(codes)",
           "return not codes or code in codes",
           RULE_TESTS + ("tests/lint/test_noqa_agreement.py",),
           "# noqa: KVP (a prefix) stops working"),
    Mutant("noqa-bare", "lint_rules/noqa.py",
           "parse_comma_separated_list(codes)) if codes else ()",
           "parse_comma_separated_list(codes)) if codes else (\"-\",)",
           RULE_TESTS + ("tests/lint/test_noqa_agreement.py",), "a bare # noqa stops working"),
    Mutant("noqa-line-not-range", "lint_rules/noqa.py",
           "        first, last = self.range_of(number)\n        return",
           "        first, last = number, number\n        return",
           ("tests/lint/test_noqa_agreement.py",),
           "a noqa at the end of a continued statement no longer covers its first line"),
    Mutant("fix-overwrites-edits", "lint_rules/files.py",
           "if digest_bytes(current) != digest:", "if False:",
           ("tests/lint/test_fix_safety.py",), "--fix overwrites a file edited meanwhile"),
    Mutant("gate-fix-before-definition", "lint_rules/rules/_fixes.py",
           "if gate.method == flag.exact.method and gate.node.lineno <= definition.end_lineno:",
           "if False:", ("tests/lint/test_fix_refused.py",),
           "the KVP003 fix rewrites a gate read before the flag is defined in the same method"),
    Mutant("in-place-unchecked", "lint_rules/files.py",
           "original = _check_unchanged(handle, digest)", "original = handle.read()",
           ("tests/lint/test_no_data_loss.py",),
           "--fix of a hard-linked file overwrites an edit made during the run"),
    Mutant("cache-trusts-rows", "lint_rules/cache.py",
           "and all(_well_formed_row(row) for row in entry[1])", "",
           ("tests/lint/test_bad_inputs.py",), "mistyped cache rows are trusted"),
    Mutant("cache-ignores-options", "lint_rules/cache.py", "sorted(codes), options,",
           "sorted(codes),", ("tests/lint/test_fresh_results.py",),
           "the result cache is not keyed on the --kvp-* options"),
    Mutant("cache-key-without-codes", "lint_rules/cache.py",
           "return f\"{digest}:{_listed(frozenset(codes))}\"", "return digest",
           ("tests/lint/test_fresh_results.py",),
           "equal files with different per-file codes share one cached answer"),
    Mutant("stat-without-ctime", "lint_rules/cache.py",
           "{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}",
           "{st.st_dev} {st.st_size} {st.st_mtime_ns}", ("tests/lint/test_stat_cache.py",),
           "a cp -p/rsync -a swap behind an equal size and mtime is answered by the stat"),
    Mutant("stat-trusted-when-racy", "lint_rules/cache.py",
           "max(st.st_mtime_ns, st.st_ctime_ns) >= (", "max(st.st_mtime_ns, st.st_ctime_ns) < (",
           ("tests/lint/test_stat_cache.py",),
           "a stat taken within a timestamp tick of the last write is trusted"),
    Mutant("crash-loses-files", "lint_rules/runner.py",
           "    for job in orphans:\n", "    for job in orphans[:0]:\n",
           ("tests/lint/test_crash_isolation.py",), "a dead worker's other files are lost"),
    # -- fixes on libcst: what a safe fix must prove, where it lands, what --unsafe-fixes skips
    Mutant("fix-beside-class-default", "lint_rules/rules/_fixes.py",
           "if ATTRIBUTE_HOOKS & bound or (name in bound and relative not in ancestors):",
           "if ATTRIBUTE_HOOKS & bound:", ("tests/lint/test_fix_breakers.py",),
           "the property fix is offered beside a class attribute that shadows it"),
    Mutant("fix-ignores-dynamic-access", "lint_rules/rules/_fixes.py",
           "if uses.dynamic or name in uses.deleted | uses.probed | uses.class_reads:",
           "if False:", ("tests/lint/test_fix_breakers.py",),
           "the property fix ignores del, computed setattr, __dict__ and probes of the flag"),
    Mutant("unsafe-rewrites-noqa-class", "lint_rules/engine.py",
           "if not self._protected(fix):  # a noqa anywhere", "if True:  # a noqa anywhere",
           ("tests/lint/test_unsafe_fixes.py",),
           "--unsafe-fixes rewrites a class that carries a KVP noqa"),
    Mutant("fix-byte-columns", "lint_rules/fixes/apply.py",
           "return line, char_col(text, byte_col)", "return line, byte_col",
           ("tests/lint/test_fix_positions.py",),
           "ast's UTF-8 byte columns taken as libcst's character columns"),
)


def copy_repository(target: Path) -> Path:
    ignore = shutil.ignore_patterns(".git", ".tox", "build", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".ruff_cache")
    shutil.copytree(REPO, target, ignore=ignore, symlinks=True)
    return target


def run_tests(copy: Path, tests: tuple, timeout: float) -> tuple[str, float]:
    """``(outcome, seconds)``: ``killed`` when the tests fail, ``live`` when they pass."""
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "killed (timeout)", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if done.returncode == 0:
        return "live", seconds
    if done.returncode in (1, 2, 3) or done.returncode < 0:
        return "killed", seconds
    return f"error (pytest exit {done.returncode})", seconds


def apply(copy: Path, mutant: Mutant) -> str | None:
    """The original text of the mutated file, or None when the mutant no longer applies."""
    path = copy / mutant.path
    if not path.exists():
        return None
    original = path.read_text()
    if original.count(mutant.old) != 1:
        return None
    path.write_text(original.replace(mutant.old, mutant.new))
    return original


def parse_args(argv: list) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the unmutated run of the chosen tests (it proves a kill is "
                             "the mutant's doing, not a test that fails anyway)")
    return parser.parse_args(argv)


def main(argv: list) -> int:
    args = parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list or not chosen:
        for mutant in MUTANTS:
            print(f"{mutant.name:26} {mutant.path:32} {mutant.what}")
        return 0 if chosen else 2
    print("| mutant | file | what | tests | outcome | s |\n| --- | --- | --- | ---: | --- | ---: |")
    counts = {"killed": 0, "live": 0}
    with tempfile.TemporaryDirectory(prefix="poolguard-mutants-") as scratch:
        copy = copy_repository(Path(scratch) / "repo")
        if not args.no_baseline:
            tests = tuple(sorted({test for mutant in chosen for test in mutant.tests}))
            outcome, seconds = run_tests(copy, tests, args.timeout * 2)
            print(f"| (none: baseline) | | the unmutated copy | {len(tests)} | "
                  f"{'passes' if outcome == 'live' else 'FAILS'} | {seconds:.0f} |", flush=True)
            if outcome != "live":
                print("\nerror: the tests fail without a mutant; no score", file=sys.stderr)
                return 1
        for mutant in chosen:
            original = apply(copy, mutant)
            if original is None:
                outcome, seconds = "n/a (source changed)", 0.0
            else:
                try:
                    outcome, seconds = run_tests(copy, mutant.tests, args.timeout)
                finally:
                    (copy / mutant.path).write_text(original)
            key = outcome.split()[0]
            if key in counts:
                counts[key] += 1
            print(f"| {mutant.name} | `{mutant.path}` | {mutant.what} | {len(mutant.tests)} | "
                  f"{outcome} | {seconds:.0f} |", flush=True)
    scored = counts["killed"] + counts["live"]
    score = f"{counts['killed']}/{scored} = {counts['killed'] / scored:.0%}" if scored else "n/a"
    print(f"\nmutation score: {score} killed ({len(chosen) - scored} not applicable)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
