"""``poolguard`` as one front door: every subcommand is listed and reached, and neither
package reaches the other through a string."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from lint_rules.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]


def test_help_lists_every_subcommand():
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines()
              if line.startswith("    ") and line.split()}
    assert set(COMMANDS) <= listed, done.stdout


def _string_imports(path: Path) -> list:
    """Calls of importlib.import_module / __import__ / find_spec naming one of our packages."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        first = node.args[0]
        if (name in {"import_module", "__import__", "find_spec", "files"}
                and isinstance(first, ast.Constant) and isinstance(first.value, str)
                and first.value.split(".")[0] in {"lint_rules", "runtime_guard"}):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {first.value}")
    return found


def test_no_package_imports_ours_by_a_string():
    files = [path for package in ("lint_rules", "runtime_guard")
             for path in sorted((ROOT / package).rglob("*.py"))]
    assert [hit for path in files for hit in _string_imports(path)] == []
