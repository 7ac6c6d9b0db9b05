"""A third hostile round on the CLI: ``--jobs`` bounds, output on a terminal that is not UTF-8,
source from standard input, and the inputs attack3 found breaking a promise of the README."""
from __future__ import annotations

import os
import sys

import pytest
from clirun import STALE, poolguard, write

from lint_rules.cli import build_parser, main
from lint_rules.output import text_path
from lint_rules.runner import default_jobs


@pytest.mark.parametrize("value", ["100000", str(10 ** 30), "auto", " auto"])
def test_jobs_above_the_cpus_is_capped_at_them(value):
    # one worker per CPU at most: --jobs 100000 used to fork one process per file
    assert build_parser().parse_args(["lint", "--jobs", value]).jobs == default_jobs()


@pytest.mark.parametrize("value", ["0", "-1", "abc", "2.5", "", "1e3"])
def test_jobs_that_is_not_a_positive_integer_is_a_usage_error(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["lint", "--jobs", value, "."])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"poolguard lint: error: argument --jobs/-j: expected a positive integer or 'auto', "
        f"got {value!r}")


@pytest.mark.parametrize("name, utf8, shown", [
    ("ü.py", True, "ü.py"),
    ("ü.py", False, '"\\303\\274.py"'),
    ("back\\xfc.py", True, '"back\\\\xfc.py"'),  # a literal backslash never reads as an escape
    ("back\\xfc.py", False, '"back\\\\xfc.py"'),
    ('say"hi.py', True, '"say\\"hi.py"'),
    ("tab\there.py", True, '"tab\\there.py"'),  # a tab or newline would break the line
    ("new\nline.py", True, '"new\\nline.py"'),
    (os.fsdecode(b"lat\xe9.py"), True, os.fsdecode(b"lat\xe9.py")),  # raw byte, surrogateescape
    (os.fsdecode(b"lat\xe9.py"), False, '"lat\\351.py"'),
    ("plain/dir/a.py", False, "plain/dir/a.py"),
])
def test_text_paths_are_unambiguous_on_any_stdout(name, utf8, shown):
    assert text_path(name, utf8) == shown


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems require UTF-8 names")
def test_an_ascii_stdout_gets_quoted_paths_utf8_annotations_and_every_explain(tmp_path):
    tree = write(tmp_path / "tree", {"ü.py": STALE, "back\\xfc.py": STALE})
    ascii_out = {"PYTHONIOENCODING": "ascii"}
    done = poolguard("lint", "--isolated", ".", cwd=tree, expect=1, env=ascii_out)
    assert sorted(line.split(":")[0] for line in done.stdout.splitlines()) == [
        '"\\303\\274.py"', '"back\\\\xfc.py"']
    annotations = poolguard("lint", "--isolated", "--format", "github", ".", cwd=tree,
                            expect=1, env=ascii_out, text=False)
    assert b"file=\xc3\xbc.py," in annotations.stdout  # GitHub's runner reads UTF-8
    shown = poolguard("explain", "KVP002", cwd=tree, expect=0, env=ascii_out)  # an em dash
    assert shown.stdout.startswith("KVP002") and "\\u2014" in shown.stdout
