"""The lint on real SGLang releases: pinned findings, recall on the bug, quiet fix, safe --fix.

Each release wheel is downloaded at test time (``tests/sglang_wheels.py``, cached, never
committed). ``corpus_snapshot.json`` pins the exact (file, line, code) set the rules report on
``sglang/srt/layers/attention/**/*.py`` of every release below, with every code enabled, so a
change in precision or recall shows up in review. Regenerate it with
``POOLGUARD_UPDATE_SNAPSHOT=1 pytest tests/lint/test_corpus.py`` and review the diff.
"""
from __future__ import annotations

import ast
import difflib
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tokenize
from collections import Counter
from pathlib import Path

import libcst
import pytest

from clirun import load_wheels_helper
from lint_rules.engine import ALL_CODES, Finding, fix_source, lint_source
from lint_rules.package import PackageIndex, class_headers
from lint_rules.rules._vocab import mentions_vocabulary

# 0.5.10/0.5.11 hold the original bug (SWA state cached at __init__, gates on a flag);
# 0.5.13 has the upstream resolver in the TRTLLM backend, 0.5.18+ also in FlashInfer.
VERSIONS = ("0.5.10", "0.5.11", "0.5.12", "0.5.13", "0.5.18", "0.5.23")
NEWEST = VERSIONS[-1]
SCOPE = "sglang/srt/layers/attention"
SNAPSHOT = Path(__file__).with_name("corpus_snapshot.json")
UPDATE_ENV = "POOLGUARD_UPDATE_SNAPSHOT"
CODES = tuple(ALL_CODES)  # KVP004 (opt-in) included on purpose: the snapshot covers every rule
FIXED_CODES = ("KVP002", "KVP003", "KVP004")
TRTLLM = f"{SCOPE}/trtllm_mha_backend.py"
SWA_FLAG = "use_sliding_window_kv_pool"
POOL_ATTR = "_swa_kv_pool"


sglang_wheels = load_wheels_helper()


def read_python(path: Path) -> str:
    """Decode a source file the way Python does (PEP 263 cookie, BOM), as the CLI must."""
    with tokenize.open(path) as handle:
        return handle.read()


@functools.lru_cache(maxsize=None)
def scoped_sources(version: str) -> dict[str, str]:
    """``{relpath: source}`` for the attention package of ``version``."""
    tree = sglang_wheels.source_tree(version)
    files = sglang_wheels.python_files(tree, SCOPE)
    assert files, f"no sources under {SCOPE} in sglang {version}"
    return {path.relative_to(tree).as_posix(): read_python(path) for path in files}


@functools.lru_cache(maxsize=None)
def scoped_findings(version: str) -> dict[str, tuple[Finding, ...]]:
    """Raw rule output (no noqa) for every scoped file of ``version``."""
    return {
        relpath: tuple(lint_source(source, codes=CODES))
        for relpath, source in scoped_sources(version).items()
    }


def finding_rows(version: str) -> list[list]:
    rows = [
        [relpath, finding.line, finding.code]
        for relpath, findings in scoped_findings(version).items()
        for finding in findings
    ]
    return sorted(rows)


def render_snapshot(rows_by_version: dict[str, list[list]]) -> str:
    """JSON with one finding per line, so review diffs read line by line."""
    out = ["{", f'  "scope": "{SCOPE}/**/*.py",', f'  "codes": {json.dumps(list(CODES))},']
    out.append('  "findings": {')
    for index, version in enumerate(sorted(rows_by_version, key=_version_key)):
        rows = rows_by_version[version]
        body = ",\n".join(f"      {json.dumps(row)}" for row in rows)
        closing = "]" if index == len(rows_by_version) - 1 else "],"
        out.append(f'    "{version}": [' + (f"\n{body}\n    " if rows else "") + closing)
    out.extend(["  }", "}", ""])
    return "\n".join(out)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@functools.lru_cache(maxsize=None)
def snapshot() -> dict:
    if os.environ.get(UPDATE_ENV) == "1":
        SNAPSHOT.write_text(render_snapshot({v: finding_rows(v) for v in VERSIONS}))
    return json.loads(SNAPSHOT.read_text())


def test_snapshot_covers_every_version_and_code():
    pinned = snapshot()
    assert pinned["codes"] == list(CODES)
    assert sorted(pinned["findings"], key=_version_key) == list(VERSIONS)


@pytest.mark.parametrize("version", VERSIONS)
def test_findings_match_snapshot(version):
    expected = Counter(tuple(row) for row in snapshot()["findings"][version])
    actual = Counter(tuple(row) for row in finding_rows(version))
    gained, lost = sorted((actual - expected).elements()), sorted((expected - actual).elements())
    assert not gained and not lost, (
        f"sglang {version}: findings changed; new {gained}, gone {lost}. "
        f"Review them, then rerun with {UPDATE_ENV}=1."
    )


# --- recall: the original bug in 0.5.11's TRTLLM backend --------------------------------------


def _class_node(source: str, name: str) -> ast.ClassDef:
    return next(
        node for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef) and node.name == name
    )


def _is_self_attr(node: ast.AST, attr: str) -> bool:
    return (
        isinstance(node, ast.Attribute) and node.attr == attr
        and isinstance(node.value, ast.Name) and node.value.id == "self"
    )


def _gate_tests(tree: ast.AST) -> list[ast.expr]:
    """Expressions that decide control flow: if/elif/while/assert/ternary tests and bool ops."""
    tests = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests.append(node.operand)
    return tests


def flag_gate_lines(source: str, class_name: str) -> set[int]:
    """Lines of every read of ``self.use_sliding_window_kv_pool`` that gates control flow."""
    gates = _gate_tests(_class_node(source, class_name))
    return {node.lineno for node in gates if _is_self_attr(node, SWA_FLAG)}


def flag_store_lines(source: str, class_name: str) -> set[int]:
    """Lines of every ``self.use_sliding_window_kv_pool = ...`` in the class."""
    lines = set()
    for node in ast.walk(_class_node(source, class_name)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(_is_self_attr(target, SWA_FLAG) for target in targets):
            lines.add(node.lineno)
    return lines


def stored_statement_lines(source: str, class_name: str) -> dict[int, int]:
    """``{line: first line}`` of every statement assigning ``self.<attr>`` in the class."""
    lines: dict[int, int] = {}
    for node in ast.walk(_class_node(source, class_name)):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
               and t.value.id == "self" for t in targets):
            lines.update((line, node.lineno) for line in range(node.lineno, node.end_lineno + 1))
    return lines


def test_recall_on_original_trtllm_bug():
    source = scoped_sources("0.5.11")[TRTLLM]
    found = {(f.line, f.code) for f in scoped_findings("0.5.11")[TRTLLM]}
    stores = flag_store_lines(source, "TRTLLMHAAttnBackend")
    gates = flag_gate_lines(source, "TRTLLMHAAttnBackend")
    assert stores and len(gates) >= 4, "the 0.5.11 TRTLLM backend no longer looks as expected"
    missing_state = {line for line in stores if not {(line, "KVP001"), (line, "KVP002")} & found}
    stored = stored_statement_lines(source, "TRTLLMHAAttnBackend")
    # a flag read inside a stored value is data: the store's finding is the decision's (rel6)
    missing_gates = {line for line in gates if (line, "KVP003") not in found and not {
        (stored.get(line), "KVP001"), (stored.get(line), "KVP002")} & found}
    assert not missing_state, f"cached SWA flag not flagged at lines {sorted(missing_state)}"
    assert not missing_gates, f"SWA flag gates not flagged at lines {sorted(missing_gates)}"


# --- precision: the upstream fix stays quiet ---------------------------------------------------


def resolver_lines(source: str) -> set[int]:
    """Lines of every ``_resolve_swa_kv_pool`` body and of the assignments that call it."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "_resolve_swa_kv_pool":
            lines.update(range(node.lineno, node.end_lineno + 1))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "_resolve_swa_kv_pool":
                lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def pool_gate_lines(source: str) -> set[int]:
    """Lines of ``self._swa_kv_pool is [not] None`` tests that mention no boolean flag."""
    flag_lines = {
        node.lineno for node in ast.walk(ast.parse(source)) if _is_self_attr(node, SWA_FLAG)
    }
    return {
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare) and _is_self_attr(node.left, POOL_ATTR)
        and isinstance(node.ops[0], (ast.Is, ast.IsNot))
    } - flag_lines


FIXED_RELEASES = [v for v in VERSIONS if _version_key(v) >= (0, 5, 13)]


@pytest.mark.parametrize("version", FIXED_RELEASES)
def test_upstream_resolver_not_flagged(version):
    quiet = []
    resolvers = 0
    for relpath, source in scoped_sources(version).items():
        if "_resolve_swa_kv_pool" not in source:
            continue
        resolvers += 1
        protected = resolver_lines(source) | pool_gate_lines(source)
        quiet += [
            (relpath, f.line, f.code) for f in scoped_findings(version)[relpath]
            if f.code in ("KVP001", "KVP003") and f.line in protected
        ]
    assert resolvers, f"sglang {version} has no _resolve_swa_kv_pool any more"
    assert not quiet, f"upstream fix flagged: {quiet}"


# --- --fix on real files -----------------------------------------------------------------------


def logical_lines(source: str) -> dict[int, range]:
    """Map each physical line to the physical lines of its logical line (tokenize NEWLINE)."""
    spans: dict[int, range] = {}
    start = None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        if start is None:
            start = token.start[0]
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            span = range(start, token.end[0] + 1)
            spans.update(dict.fromkeys(span, span))
            start = None
    return spans


def allowed_lines(source: str, findings) -> set[int]:
    """A fix may touch only the logical lines (whole statements or compound-statement headers,
    with their continuation lines) that hold a fixable finding."""
    spans = logical_lines(source)
    allowed: set[int] = set()
    for finding in findings:
        allowed.update(spans.get(finding.line, (finding.line,)))
    return allowed


def _is_property_block(lines: list[str]) -> bool:
    """Inserted text that only defines read-only properties (the flag-to-view fix)."""
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return False
    return bool(tree.body) and all(
        isinstance(node, ast.FunctionDef) and node.decorator_list for node in tree.body
    )


def changed_original_lines(before: str, after: str) -> set[int]:
    """1-based lines of ``before`` that a diff replaces or deletes, plus, for a pure insertion,
    the line it lands after (so inserted code must sit next to a reported span), unless the
    insertion is a block of property definitions (placed after the flag's method)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    changed: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1 + 1, i2 + 1))
        elif tag == "insert" and not _is_property_block(new[j1:j2]):
            changed.add(max(i1, 1))
    return changed


def public_names(source: str) -> dict[str, set[str]]:
    """Per class: attributes stored on ``self`` plus methods and properties it defines."""
    names: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            found = names.setdefault(node.name, set())
            for inner in ast.walk(node):
                if isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store):
                    if isinstance(inner.value, ast.Name) and inner.value.id == "self":
                        found.add(inner.attr)
                elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.add(inner.name)
    return names


def fix_problems(source: str) -> list[str]:
    """Every way ``fix_source`` misbehaves on ``source`` (empty list: it behaved)."""
    before = lint_source(source, codes=CODES, honor_noqa=True)  # what --fix acts on
    fixable = [f for f in before if f.fixable]
    if not fixable:
        return []
    problems = [f"{f.code} at line {f.line} claims a fix" for f in fixable
                if f.code not in FIXED_CODES]
    fixed, remaining = fix_source(source, codes=CODES)
    try:
        libcst.parse_module(fixed)
    except libcst.ParserSyntaxError as error:
        return problems + [f"fixed output does not parse: {str(error).splitlines()[0]}"]
    relinted = lint_source(fixed, codes=CODES, honor_noqa=True)
    if set(relinted) != set(remaining):
        problems.append(f"fix_source reports {remaining} but a re-lint finds {relinted}")
    still_fixable = [(f.line, f.code) for f in relinted if f.fixable]
    if still_fixable:
        problems.append(f"fixable findings survive the fix: {still_fixable}")
    unfixable = Counter(f.code for f in before if not f.fixable)
    if Counter(f.code for f in relinted) != unfixable:
        problems.append(f"unfixable findings changed: {unfixable} -> "
                        f"{Counter(f.code for f in relinted)}")
    outside = changed_original_lines(source, fixed) - allowed_lines(source, fixable)
    if outside:
        problems.append(f"fix changed lines outside the reported spans: {sorted(outside)}")
    if fix_source(fixed, codes=CODES)[0] != fixed:
        problems.append("fix is not idempotent")
    after = public_names(fixed)
    lost = {(cls, name) for cls, names in public_names(source).items()
            for name in names - after.get(cls, set())}
    if lost:  # readers in other files must keep working: a flag may become a property only
        problems.append(f"fix removed public attributes: {sorted(lost)}")
    return problems


def fixable_files(version: str) -> list[str]:
    return [relpath for relpath, found in scoped_findings(version).items()
            if any(f.fixable for f in found)]


@pytest.mark.parametrize("version", VERSIONS)
def test_fix_on_real_files(version):
    """Every real file with a fixable finding: the fix re-parses, re-lints clean of fixable
    findings, touches only reported spans and keeps every public attribute readable."""
    problems = {relpath: fix_problems(scoped_sources(version)[relpath])
                for relpath in fixable_files(version)}
    problems = {path: found for path, found in problems.items() if found}
    assert not problems, f"sglang {version}: {problems}"


def test_newest_release_exercises_the_fixes():
    # older releases have no safe fix at all (their gates test type flags, not the pool)
    assert fixable_files(NEWEST), "no fixable finding on the newest release to exercise --fix"


# --- whole tree of the newest release ----------------------------------------------------------


def test_whole_newest_tree_never_crashes():
    tree = sglang_wheels.source_tree(NEWEST)
    files = sglang_wheels.python_files(tree)
    assert len(files) > 1000
    bad = []
    for path in files:
        source = read_python(path)
        line_count = source.count("\n") + 1
        for finding in lint_source(source, codes=CODES):
            # KVP900 here would mean a real release file the rules never saw
            if finding.code == "KVP900" or not 1 <= finding.line <= line_count:
                bad.append((path.relative_to(tree).as_posix(), finding))
    assert not bad, f"unparsed files or malformed findings: {bad[:5]}"


def test_every_message_on_the_newest_whole_tree_fits_a_line_and_names_a_remedy():
    """What ``poolguard lint sglang/srt`` (the package, every rule) says on the newest release:
    each message at most 130 characters, ending in a remedy after ``:`` or ``;`` (rel6: 15-20
    messages per release were longer; the rule examples alone did not show it)."""
    tree = sglang_wheels.source_tree(NEWEST)
    cli = subprocess.run(
        [_console_script("poolguard"), "lint", "--isolated", "--no-cache", "--select", "KVP",
         "--format", "json", "sglang/srt"],
        cwd=tree, capture_output=True, text=True,
    )
    assert cli.returncode == 1, cli.stderr
    rows = json.loads(cli.stdout)
    assert len(rows) > 50
    long = sorted({row["message"] for row in rows if len(row["message"]) > 130})
    assert not long, long
    blind = sorted({row["message"] for row in rows
                    if not row["message"].replace(";", ":").rsplit(":", 1)[-1].strip()})
    assert not blind, blind


# --- the front ends report the same set on real code -------------------------------------------


def _console_script(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"{name} is not installed next to {sys.executable}"
    return found


def test_flake8_plugin_and_cli_agree_with_the_engine():
    """Real flake8 and ``poolguard lint`` on the newest attention package: same (file, line,
    code) set as ``lint_source`` with ``# noqa`` honoured, as both front ends do."""
    tree = sglang_wheels.source_tree(NEWEST)
    expected = sorted(
        (relpath, finding.line, finding.code)
        for relpath, source in scoped_sources(NEWEST).items()
        for finding in lint_source(source, codes=CODES, honor_noqa=True)
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
         "--format", "%(path)s:%(row)d:%(code)s", SCOPE],
        cwd=tree, capture_output=True, text=True,
    )
    assert flake8.returncode in (0, 1) and not flake8.stderr, flake8.stderr
    rows = (line.rsplit(":", 2) for line in flake8.stdout.splitlines())
    assert sorted((path, int(line), code) for path, line, code in rows) == expected
    cli = subprocess.run(
        [_console_script("poolguard"), "lint", "--isolated", "--no-cache", "--select", "KVP",
         "--format", "json", SCOPE],
        cwd=tree, capture_output=True, text=True,
    )
    assert cli.returncode == (1 if expected else 0), cli.stderr
    # the CLI sees the package: the per-file findings less those it proves false, and the
    # reviewed cross-module ones
    found = Counter((r["path"], r["line"], r["code"]) for r in json.loads(cli.stdout))
    seen = Counter([*expected, *PACKAGE_ONLY[NEWEST]]) - Counter(PACKAGE_DROPS[NEWEST])
    assert sorted(found.elements()) == sorted(seen.elements())  # (two stores on one line)


# Findings only the package-wide analysis of ``poolguard lint DIR`` makes, each read: the
# isinstance-or-None helper ``get_kv_shard_pool`` of ``kv_shard_hooks.py`` stored in __init__
# (the KVP001), the flags decided from it (``needs_cpu_seq_lens``, ``supports_mha_one_shot``:
# KVP001, a shard pool's presence is no SWA flag) and the gates on those flags (KVP003; not on
# ``use_mha``, made again per forward in the statement that gates ``supports_mha_one_shot``); and
# MiniCPMSparseBackend's inner FlashAttentionBackend (of flashattention_backend.py) built from
# the runner while MiniCPM keeps a token_to_kv_pool of its own that a swap rebinds alone; and
# per-forward decisions on that kept isinstance-or-None (``self._kv_shard_pool is not None``,
# KVP003) in dsa, flashattention (init_forward_metadata, get_fused_kv_write_buffers), trtllm_mla;
# DeepSeek V4's indexers from make_candidate_indexer / make_full_topk_indexer (dsv4/v41_indexer),
# given the pool BY KEYWORD and keeping it (self.token_to_kv_pool = token_to_kv_pool): KVP001;
# DeepSeek V4's OnlineC128MTPController (dsv4/online_c128_mtp.py), built with the backend itself,
# memoising per layer the compress-state buffers it reads through self.backend.token_to_kv_pool
# (get_attention_compress_states(i).kv_score_buffer.kv_score) on first use, never checked
# against the pool again: KVP001 at self.online_c128_mtp (audit12).
PACKAGE_ONLY = {
    "0.5.22": [(f"{SCOPE}/{path}", line, code) for path, line, code in (
        ("flashattention_backend.py", 217, "KVP001"),
        ("flashattention_backend.py", 221, "KVP001"),
        ("deepseek_v4_backend.py", 1166, "KVP001"),
        ("deepseek_v4_backend.py", 1166, "KVP001"),
        ("deepseek_v4_backend.py", 1173, "KVP001"),
        ("deepseek_v4_backend.py", 1238, "KVP001"),  # online_c128_mtp
        ("flashattention_backend.py", 692, "KVP003"),
        ("trtllm_mla_backend.py", 254, "KVP001"),
        ("trtllm_mla_backend.py", 255, "KVP001"),
    )],
    "0.5.23": [(f"{SCOPE}/{path}", line, code) for path, line, code in (
        ("dsa_backend.py", 561, "KVP001"),
        ("dsa_backend.py", 568, "KVP001"),
        ("dsa_backend.py", 1121, "KVP003"),
        ("dsa_backend.py", 4065, "KVP003"),
        ("deepseek_v4_backend.py", 1286, "KVP001"),  # prefill_candidates, decode_candidates
        ("deepseek_v4_backend.py", 1286, "KVP001"),
        ("deepseek_v4_backend.py", 1293, "KVP001"),
        ("deepseek_v4_backend.py", 1360, "KVP001"),  # online_c128_mtp
        ("flashattention_backend.py", 217, "KVP001"),
        ("flashattention_backend.py", 221, "KVP001"),
        ("flashattention_backend.py", 741, "KVP003"),
        ("flashattention_backend.py", 1309, "KVP003"),
        ("flashattention_backend.py", 1447, "KVP003"),
        ("minicpm/backend.py", 138, "KVP001"),
        ("trtllm_mla_backend.py", 254, "KVP001"),
        ("trtllm_mla_backend.py", 255, "KVP001"),
        ("trtllm_mla_backend.py", 775, "KVP003"),
    )],
}


# Findings of one file that the package index proves false, each read: trtllm_mha's gates on
# the flag it inherits from flashinfer, where that flag mirrors the pool flashinfer resolves
# through the allocator (rel5 F1; flake8 sees trtllm alone and keeps them).
PACKAGE_DROPS = {
    "0.5.23": [(f"{SCOPE}/trtllm_mha_backend.py", line, "KVP003")
               for line in (729, 925, 1163, 1216, 1393)],
}


@pytest.mark.parametrize("version", (VERSIONS[0], NEWEST))  # the oldest and the newest
def test_package_mode_keeps_every_finding_and_adds_only_reviewed_ones(version):
    """The engine with the package index (what ``poolguard lint DIR`` runs) on the release's
    attention package: the per-file findings, plus exactly the reviewed cross-module ones."""
    tree = sglang_wheels.source_tree(version)
    sources = scoped_sources(version)
    index = PackageIndex([str(tree / relpath) for relpath in sources])
    index.connect({str(tree / r): class_headers(s) for r, s in sources.items()},
                  {str(tree / r): mentions_vocabulary(s) for r, s in sources.items()})
    found = Counter(
        (relpath, finding.line, finding.code)
        for relpath, source in sources.items()
        for finding in lint_source(source, codes=CODES, package=index, path=str(tree / relpath))
    )
    per_file = Counter(tuple(row) for row in finding_rows(version))
    lost = sorted((per_file - found).elements())
    assert lost == sorted(PACKAGE_DROPS.get(version, [])), f"package mode lost {lost}"
    assert sorted((found - per_file).elements()) == sorted(PACKAGE_ONLY.get(version, []))
