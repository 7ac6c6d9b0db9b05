"""A method's object named otherwise than ``self`` (``def __init__(this, runner)``): the lint
reads it as ``self`` (found where the ``self`` spelling is found), and the codemods, which edit
the source as written, leave such a class alone (``--fix --unsafe-fixes`` changes nothing and
says why). The flake8 plugin renames a copy: the tree flake8 hands every plugin is unchanged."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from clirun import poolguard, write

from lint_rules.engine import DEFAULT_CODES
from lint_rules.flake8_plugin import PoolGuardChecker

EXAMPLE = (Path(__file__).resolve().parents[2] / "lint_rules" / "examples"
           / "trtllm_backend_prefix.py")


def _spelled(source: str, name: str) -> str:
    return re.sub(r"\bself\b", name, source)


def _positions(stdout: str) -> set:
    """(line, column, code) of each finding."""
    return {(*line.split(":")[1:3], line.split(": ")[1][:6]) for line in stdout.splitlines()
            if ": KVP" in line}


def test_every_finding_of_the_self_spelling_under_another_receiver_name(tmp_path):
    source = EXAMPLE.read_text()
    write(tmp_path, {"as_self.py": source, "as_this.py": _spelled(source, "this"),
                     "as_backend.py": _spelled(source, "backend")})
    found = {name: _positions(poolguard("lint", "--isolated", "--no-cache", name, cwd=tmp_path,
                                        expect=1).stdout)
             for name in ("as_self.py", "as_this.py", "as_backend.py")}
    assert len(found["as_self.py"]) == 4
    assert found["as_this.py"] == found["as_backend.py"] == found["as_self.py"]


def test_no_fix_edits_a_class_whose_receiver_is_spelled_otherwise(tmp_path):
    spelled = _spelled(EXAMPLE.read_text(), "this")
    write(tmp_path, {"as_this.py": spelled, "as_self.py": EXAMPLE.read_text()})
    lint = poolguard("lint", "--isolated", "--no-cache", "as_this.py", cwd=tmp_path,
                     expect=1).stdout
    assert "[*]" not in lint and "hidden fix" not in lint
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".",
                     cwd=tmp_path, expect=1)
    assert (tmp_path / "as_this.py").read_text() == spelled
    assert "names its object otherwise than self" in done.stderr
    assert (tmp_path / "as_self.py").read_text() != EXAMPLE.read_text()  # (the rewrite runs)


def test_the_flake8_tree_is_renamed_in_a_copy():
    source = _spelled(EXAMPLE.read_text(), "this")
    tree = ast.parse(source)
    before = ast.dump(tree)
    PoolGuardChecker.codes = frozenset(DEFAULT_CODES)
    found = list(PoolGuardChecker(tree, source.splitlines(True), "as_this.py").run())
    assert len(found) == 4
    assert ast.dump(tree) == before
