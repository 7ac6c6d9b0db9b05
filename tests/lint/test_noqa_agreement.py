"""``--add-noqa`` only adds comments, and lint, ``--diff``, ``--fix`` and flake8 agree on what a
``noqa`` suppresses (issue 16, class 2).

Every form below is linted, given ``--add-noqa``, linted again, diffed, fixed and run through
the real flake8 in one tree: comments go where Python's tokenizer ends the flagged line's
range (after a ``\\`` continuation, on CR-only files, into an existing ``noqa``), code never
changes (same ``ast``), and a ``# noqa`` that flake8 reads inside a string is refused, not
rewritten.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
from clirun import poolguard, write
from samples import GATED

GATE = "        if self.use_sliding_window_kv_pool:"
FORMS = {  # name -> source; each has one fixable KVP003 (and the KVP004 mirror, opt-in)
    "plain.py": GATED,
    "continued.py": GATED.replace(GATE, GATE[:-1] + " and \\\n                True:"),
    "cr_only.py": GATED.replace("\n", "\r"),
    "cr_continued.py": GATED.replace(GATE, GATE[:-1] + " and \\\n    True:").replace("\n", "\r"),
    "crlf.py": GATED.replace("\n", "\r\n"),
    "merge.py": GATED.replace(GATE, GATE + "  # noqa: E501 long on purpose"),
    "lowercase.py": GATED.replace(GATE, GATE + "  # noqa: kvp003"),  # flake8: case matters
    "multiline.py": GATED.replace(GATE, GATE[:-1] + ' and """\n    x""":'),
    "form_feed.py": "\x0c\n" + GATED.replace(GATE, GATE + "  # \u2028 \x85 odd"),
    "bom.py": "\ufeff" + GATED,
}
IN_STRING = {"in_string.py": GATED.replace(GATE, GATE[:-1] + ' and "# noqa:E501":')}


def _flake8(tree) -> set:
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP003",
                           "--format", "%(path)s:%(row)d:%(code)s", "."], cwd=tree,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return {line[2:] for line in done.stdout.split()}


def _lint(tree, *extra) -> set:
    done = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--format",
                     "json", *extra, ".", cwd=tree)
    return {f"{r['path']}:{r['line']}:{r['code']}" for r in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def adopted(tmp_path_factory):
    tree = tmp_path_factory.mktemp("noqa")
    for name, text in {**FORMS, **IN_STRING}.items():
        (tree / name).write_bytes(text.encode())
    before = {name: (tree / name).read_bytes() for name in (*FORMS, *IN_STRING)}
    first = _lint(tree)
    added = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--add-noqa",
                      ".", cwd=tree, expect=2)
    return tree, before, first, added


def test_before_adding_lint_and_flake8_agree(adopted):
    tree, before, first, _ = adopted
    assert {entry.split(":")[0] for entry in first} == set(FORMS) | set(IN_STRING)
    assert "merge.py:6:KVP003" in first and "lowercase.py:6:KVP003" in first


def test_add_noqa_changes_comments_only(adopted):
    tree, before, _, added = adopted
    for name in FORMS:
        after = (tree / name).read_bytes()
        assert after != before[name], name
        assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before[name])), name
        assert after.count(b"\r") == before[name].count(b"\r"), name  # newlines kept
        assert after.startswith(b"\xef\xbb\xbf") == (name == "bom.py")
    assert (tree / "continued.py").read_text().splitlines()[6].endswith("# noqa: KVP003")
    assert "# noqa: E501, KVP003 long on purpose" in (tree / "merge.py").read_text()
    assert "# noqa: kvp003, KVP003" in (tree / "lowercase.py").read_text()


def test_a_noqa_flake8_reads_inside_a_string_is_refused_not_rewritten(adopted):
    tree, before, _, added = adopted
    assert (tree / "in_string.py").read_bytes() == before["in_string.py"]
    assert "in_string.py: cannot add noqa: line 6: flake8 reads the '# noqa' inside a string" \
        in added.stderr


def test_after_adding_lint_diff_fix_and_flake8_agree(adopted):
    tree, *_ = adopted
    left = {"in_string.py:6:KVP003"}
    assert _lint(tree) == left == _flake8(tree)
    diff = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--diff", ".",
                     cwd=tree, expect=1).stdout
    assert set(diff.split("\n")) & {"--- a/" + name for name in FORMS} == set()
    again = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--add-noqa",
                      *FORMS, cwd=tree, expect=0)
    assert "added noqa to 0 lines" in again.stderr  # idempotent
    snapshot = {name: (tree / name).read_bytes() for name in FORMS}
    poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--fix", *FORMS,
              cwd=tree, expect=0)
    assert {name: (tree / name).read_bytes() for name in FORMS} == snapshot


@pytest.mark.parametrize("comment, suppressed", [
    ("# noqa", True), ("# NOQA", True), ("# noqa:KVP003", True), ("# noqa: KVP", True),
    ("# noqa: kvp003", False), ("# noqa: E501", False), ("# noqa : KVP003", True),
    ("# noqa:E501,KVP0", True), ("# noqa:  KVP003", True), ("#noqa", False),
])
def test_each_noqa_spelling_means_what_it_means_to_flake8(tmp_path, comment, suppressed):
    write(tmp_path, {"g.py": GATED.replace(GATE, f"{GATE}  {comment}")})
    lint, flake8 = _lint(tmp_path), _flake8(tmp_path)
    assert lint == flake8, (lint, flake8)
    assert (lint == set()) == suppressed
    fixed = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--diff", ".",
                      cwd=tmp_path).stdout
    assert (fixed == "") == suppressed  # --diff (and so --fix) leaves a suppressed line alone
