"""``--unsafe-fixes`` through the real CLI (issue 14): ruff's applicability on our fixes.

Without the option the unsafe resolver rewrite is counted ("N hidden fixes can be tried with
``--fix --unsafe-fixes``"), listed in JSON with its applicability, and never applied; with
it, ``--fix`` and ``--diff`` apply it, it wins over the safe fix inside its class, a class with
a KVP ``noqa`` is never rewritten, a class the codemod declines keeps its findings (no longer
offering the fix), and the diff applies with ``git apply`` to the ``--fix`` result.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from textwrap import dedent

import pytest
from clirun import poolguard, write
from samples import RESOLVED_AND_FLAGGED

from lint_rules.engine import lint_source
from lint_rules.fixes import RESOLVER_TITLE

IMPORT = "from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool\n\n\n"
# only the unsafe rewrite fixes it (no resolved pool yet)
FLAGGED = dedent("""\
    class FlagAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            return "swa" if self.use_swa else "full"
""")
# the same, but its gate is suppressed: the class must stay as it is
QUIET = FLAGGED.replace("FlagAttnBackend", "QuietAttnBackend").replace(
    "use_swa", "has_swa").replace('else "full"\n', 'else "full"  # noqa: KVP003\n')
# the whole pool cached: the codemod declines it
CACHED = dedent("""\
    class PoolCacheAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.kv_pool = model_runner.token_to_kv_pool
""")
MIXED = IMPORT + FLAGGED + "\n\n" + QUIET + "\n\n" + CACHED
SAFE_MARK = "code that still assigns the flag is ignored"  # the safe property's setter


def _class_source(source: str, name: str) -> str:
    node = next(n for n in ast.walk(ast.parse(source)) if getattr(n, "name", None) == name)
    return "".join(source.splitlines(True)[node.lineno - 1:node.end_lineno])


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path / "tree", {"mixed.py": MIXED, "both.py": RESOLVED_AND_FLAGGED})


def test_lint_counts_hidden_fixes_and_lists_their_applicability(tree):
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=tree, expect=1)
    assert done.stderr.rstrip().endswith(  # not the cached pool: the codemod refuses it
        "3 hidden fixes can be tried with `--fix --unsafe-fixes` "
        "(it says why for each class it declines).")
    assert "both.py:7:9: KVP002 [*]" in done.stdout and "mixed.py:7:9: KVP002 " in done.stdout
    rows = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".",
                                cwd=tree, expect=1).stdout)
    fixes = {(r["path"], r["line"]): [(f["applicability"], f["title"]) for f in r["fixes"]]
             for r in rows}
    assert fixes[("both.py", 7)][0][0] == "safe"
    assert fixes[("both.py", 7)][1] == ("unsafe", RESOLVER_TITLE)
    assert fixes[("mixed.py", 7)] == [("unsafe", RESOLVER_TITLE)]
    assert fixes[("mixed.py", 16)] == []  # QuietAttnBackend: a noqa in the class
    marked = poolguard("lint", "--isolated", "--no-cache", "--unsafe-fixes", ".", cwd=tree,
                       expect=1)
    assert "mixed.py:7:9: KVP002 [*]" in marked.stdout and "hidden" not in marked.stderr


def test_fix_without_the_option_applies_only_safe_fixes(tree):
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=tree, expect=1)
    assert (tree / "mixed.py").read_text() == MIXED
    both = (tree / "both.py").read_text()
    assert SAFE_MARK in both and "def use_swa(self) -> bool:" not in both


def test_unsafe_fix_rewrites_what_it_may_and_wins_over_the_safe_fix(tree):
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".",
                     cwd=tree, expect=1)
    mixed, both = (tree / "mixed.py").read_text(), (tree / "both.py").read_text()
    for source in (mixed, both):
        compile(source, "fixed", "exec")
    assert "def _resolve_swa_kv_pool(model_runner):" in mixed
    assert _class_source(mixed, "QuietAttnBackend") == QUIET  # noqa in the class: untouched
    assert _class_source(mixed, "PoolCacheAttnBackend") == CACHED  # declined: untouched
    assert "def use_swa(self) -> bool:" in both and SAFE_MARK not in both  # the rewrite won
    left = {(f.line, f.code) for f in lint_source(mixed)}
    flag_class = _class_source(mixed, "FlagAttnBackend")
    assert not [f for f in lint_source(flag_class) if f.code != "KVP900"]
    assert any(code == "KVP001" for _, code in left)  # the declined class keeps its finding
    assert "[*]" not in done.stdout  # what is left offers nothing more
    again = poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".",
                      cwd=tree, expect=1)
    assert (tree / "mixed.py").read_text() == mixed and "fixed" not in again.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_unsafe_diff_applies_with_git_to_the_fix_result(tree, tmp_path):
    diff = poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", ".",
                     cwd=tree, expect=1).stdout
    assert "+    def _resolve_swa_kv_pool(model_runner):" in diff
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy)
    subprocess.run(["git", "apply", "-"], input=diff, text=True, cwd=copy, check=True,
                   capture_output=True)
    poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".", cwd=tree,
              expect=1)
    for name in ("mixed.py", "both.py"):
        assert (copy / name).read_text() == (tree / name).read_text()


def _apply_sarif(text: str, fix: dict) -> str:
    """A SARIF fix's whole-line replacements applied to ``text`` (last first), on its lines
    as Python counts them (CR, LF, CRLF)."""
    lines = [line for line in re.split(r"(?<=\r\n)|(?<=\n)|(?<=\r)(?!\n)", text) if line]
    (change,) = fix["artifactChanges"]
    for replacement in reversed(change["replacements"]):
        region = replacement["deletedRegion"]
        first = region["startLine"] - 1
        end = region["endLine"] - 1 if region["endColumn"] == 1 else region["endLine"]
        if region["startColumn"] != 1:  # an insertion after the last line
            first = end = len(lines)
        lines[first:end] = [replacement["insertedContent"]["text"]]
    return "".join(lines)


def test_sarif_fixes_are_the_replacements_fix_writes(tree, tmp_path):
    log = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "sarif", ".",
                               cwd=tree, expect=1).stdout)
    results = log["runs"][0]["results"]
    flagged = next(r for r in results if r["ruleId"] == "KVP002" and r["locations"][0][
        "physicalLocation"]["artifactLocation"]["uri"] == "both.py")
    safe, unsafe = flagged["fixes"]
    assert safe["description"]["text"].endswith("(safe)")
    assert unsafe["description"]["text"] == f"{RESOLVER_TITLE} (unsafe)"
    assert safe["artifactChanges"][0]["artifactLocation"]["uri"] == "both.py"
    original = (tree / "both.py").read_text()
    for fix, flags in ((safe, ["--fix"]), (unsafe, ["--fix", "--unsafe-fixes"])):
        copy = write(tmp_path / flags[-1], {"both.py": original})
        poolguard("lint", "--isolated", "--no-cache", *flags, "both.py", cwd=copy)
        assert _apply_sarif(original, fix) == (copy / "both.py").read_text()
    quiet = [r for r in results if r["locations"][0]["physicalLocation"]["region"][
        "startLine"] == 16 and r["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"] == "mixed.py"]
    assert quiet and "fixes" not in quiet[0]  # a class with a noqa offers nothing


def test_sarif_fix_regions_count_lines_as_python_does(tmp_path):
    """A form feed and U+2028 inside lines end no line for Python, so none for the regions:
    ``str.splitlines`` would break there and shift every region below them."""
    original = "# \u2028 a comment\n\x0c\n" + IMPORT + FLAGGED
    tree = write(tmp_path / "tree", {"odd.py": original})
    log = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "sarif", ".",
                               cwd=tree, expect=1).stdout)
    (fix,) = {json.dumps(f, sort_keys=True): f for r in log["runs"][0]["results"]
              for f in r.get("fixes", ())}.values()
    poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "odd.py", cwd=tree,
              expect=0)
    assert _apply_sarif(original, fix) == (tree / "odd.py").read_text(encoding="utf-8")


def test_a_class_the_codemod_refuses_advertises_no_fix(tree):
    """One source of truth (rel5 §5.5): the whole-pool cache is refused by the codemod before
    any rewrite, so neither JSON nor SARIF lists the resolver fix on it, the hidden-fix count
    leaves it out, and ``--fix --unsafe-fixes`` still says why it left the class alone."""
    rows = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".",
                                cwd=tree, expect=1).stdout)
    cached = [r for r in rows if r["path"] == "mixed.py" and r["code"] == "KVP001"]
    assert cached and all(r["fixes"] == [] for r in cached), cached
    log = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "sarif", ".",
                               cwd=tree, expect=1).stdout)
    sarif = [r for r in log["runs"][0]["results"] if r["ruleId"] == "KVP001"]
    assert sarif and all("fixes" not in r for r in sarif)
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".",
                     cwd=tree, expect=1)
    assert ("PoolCacheAttnBackend not rewritten by --unsafe-fixes: a hazard that is not an SWA"
            " flag") in done.stderr, done.stderr
