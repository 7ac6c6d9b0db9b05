"""Adopting the lint on a tree with findings (issue 10, Adoption): ``--add-noqa`` and baselines,
through the real CLI and the real flake8, and on a whole SGLang 0.5.23 tree."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
from pathlib import Path
from textwrap import dedent

import pytest
from clirun import json_rows, load_wheels_helper, poolguard, write

from lint_rules.engine import lint_source

# Every awkward place for a comment: an existing noqa of another tool, a multi-line string
# ending the statement, a backslash continuation, a bare noqa and a gate.
AWKWARD = dedent('''\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.swa_pool = model_runner.token_to_kv_pool  # noqa: E501
            self.other = (model_runner.token_to_kv_pool if x else """
    # not a comment: inside the string
    """)
            self.third = model_runner.token_to_kv_pool if y else \\
                None
            self.fourth = model_runner.token_to_kv_pool  # noqa
            self.fifth = model_runner.token_to_kv_pool  # type: ignore

        def forward_decode(self, layer):
            if self.use_sliding_window_kv_pool:
                return 1
            return 0
''')


def test_add_noqa_silences_every_finding_for_poolguard_and_flake8(tmp_path, run_flake8):
    tree = write(tmp_path / "tree", {"b.py": AWKWARD})
    before = poolguard("lint", "--isolated", "--format", "json", cwd=tree, expect=1)
    flagged = json_rows(before.stdout)
    assert len(flagged) >= 4
    done = poolguard("lint", "--isolated", "--add-noqa", cwd=tree, expect=0)
    assert f"added noqa to {len(flagged)} lines in 1 file" in done.stderr
    text = (tree / "b.py").read_text()
    # the code is the same code: only comments changed
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(AWKWARD))
    assert "# not a comment: inside the string\n" in text
    assert "# noqa: E501, KVP001" in text  # merged, not a second noqa
    assert "# type: ignore  # noqa: KVP001" in text
    poolguard("lint", "--isolated", cwd=tree, expect=0)
    again = poolguard("lint", "--isolated", "--add-noqa", cwd=tree, expect=0)  # idempotent
    assert "added noqa to 0 lines" in again.stderr and (tree / "b.py").read_text() == text
    flake8 = run_flake8({"b.py": text}, "--select", "KVP", "b.py")
    assert flake8.returncode == 0 and flake8.stdout == ""


def test_add_noqa_keeps_crlf_and_encoding(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + AWKWARD.split('"""')[0] + "None)\n"
    data = source.replace("\n", "\r\n").encode("latin-1")
    tree = write(tmp_path / "tree", {"b.py": data})
    poolguard("lint", "--isolated", "--add-noqa", cwd=tree, expect=0)
    after = (tree / "b.py").read_bytes()
    assert b"\r\n" in after and b"\n" not in after.replace(b"\r\n", b"")
    assert after.count(b"# noqa") == 2 and "caf\xe9".encode("latin-1") in after
    poolguard("lint", "--isolated", cwd=tree, expect=0)


def test_baseline_hides_known_findings_and_survives_unrelated_edits(tmp_path):
    tree = write(tmp_path / "tree", {"b.py": AWKWARD.replace("  # noqa\n", "\n")})
    poolguard("lint", "--isolated", "--write-baseline", "base.json", cwd=tree, expect=0)
    rows = json.loads((tree / "base.json").read_text())["findings"]
    assert {row["code"] for row in rows} == {"KVP001", "KVP003"}
    poolguard("lint", "--isolated", "--baseline", "base.json", cwd=tree, expect=0)
    # lines move and an equal flagged line appears: only the new occurrence is reported
    moved = "import os\n\n" + (tree / "b.py").read_text().replace(
        "        return 0\n", "        if self.use_sliding_window_kv_pool:\n"
        "            return 2\n        return 0\n")
    (tree / "b.py").write_text(moved)
    done = poolguard("lint", "--isolated", "--baseline", "base.json", "--format", "json",
                     cwd=tree, expect=1)
    [(path, line, code)] = json_rows(done.stdout)
    assert (path, code) == ("b.py", "KVP003")
    assert moved.splitlines()[line - 1].strip() == "if self.use_sliding_window_kv_pool:"
    assert line == len(moved.splitlines()) - 2  # the second, new gate


HEAD = '{"format": "poolguard-baseline", '


@pytest.mark.parametrize("content", ["{not json", '{"format": "other"}', "[]",
                                     HEAD + '"findings": [1]}',
                                     HEAD + '"version": 1, "findings": [1]}',
                                     # another poolguard's format: its fingerprints are not ours
                                     HEAD + '"version": 2, "findings": []}',
                                     HEAD + '"version": "1", "findings": []}',
                                     HEAD + '"version": true, "findings": []}'])
def test_a_bad_baseline_exits_2_with_one_line(tmp_path, content):
    tree = write(tmp_path / "tree", {"b.py": AWKWARD, "base.json": content})
    done = poolguard("lint", "--isolated", "--baseline", "base.json", cwd=tree, expect=2)
    assert done.stderr.count("\n") == 1 and "baseline" in done.stderr
    missing = poolguard("lint", "--isolated", "--baseline", "nope.json", cwd=tree, expect=2)
    assert "cannot read baseline nope.json" in missing.stderr


def _sglang_tree() -> Path:
    return load_wheels_helper().source_tree("0.5.23")


def _insert_stale_flag(path: Path) -> int:
    """Add a pool cached in the first ``__init__`` of the file; returns the new line number."""
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.match(r"    def __init__\(", line))
    first = next(i for i in range(start, len(lines)) if re.match(r"        self\.\w+ = ", lines[i]))
    lines.insert(first, "        self.poolguard_new_stale = model_runner.token_to_kv_pool\n")
    path.unlink()  # the tree is hard-linked to the cached release: never write through it
    path.write_text("".join(lines))
    return first + 1


def test_baseline_on_a_whole_sglang_release(tmp_path):
    """SGLang 0.5.23 as a project adopting the lint: baseline, clean run, then one new stale
    pool in one backend fails the run with exactly that finding."""
    shutil.copytree(_sglang_tree() / "sglang", tmp_path / "sglang", copy_function=os.link)
    cache = tmp_path / "cache"
    wrote = poolguard("lint", "--isolated", "--write-baseline", "base.json", "sglang",
                      cwd=tmp_path, cache_dir=cache, expect=0)
    known = json.loads((tmp_path / "base.json").read_text())["findings"]
    assert known and f"wrote {len(known)} findings" in wrote.stderr
    clean = poolguard("lint", "--isolated", "--baseline", "base.json", "sglang",
                      cwd=tmp_path, cache_dir=cache, expect=0)
    assert clean.stdout == ""
    backend = tmp_path / "sglang/srt/layers/attention/triton_backend.py"
    line = _insert_stale_flag(backend)
    expected = [(f.line, f.code) for f in lint_source(backend.read_text()) if f.line == line]
    assert expected == [(line, "KVP001")]
    done = poolguard("lint", "--isolated", "--baseline", "base.json", "--format", "json",
                     "sglang", cwd=tmp_path, cache_dir=cache, expect=1)
    assert json_rows(done.stdout) == [("sglang/srt/layers/attention/triton_backend.py", line,
                                       "KVP001")]
