"""The upstream patch: ``poolguard lint --fix --unsafe-fixes`` run once per test session on a
copy of the unpacked SGLang 0.5.23 tree, and what it changed (tests/lint/test_upstream_patch.py
and tests/runtime/test_patched_backends.py share it through tests/conftest.py's fixture).

The full diff is kept as a test artifact: ``$POOLGUARD_ARTIFACTS/upstream-0.5.23.diff`` when that
is set, else beside the patched tree in pytest's temporary directory; never in the repository.
"""
from __future__ import annotations

import ast
import difflib
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

VERSION = "0.5.23"
COMMAND = ("lint", "--fix", "--unsafe-fixes", "sglang")


@dataclass
class Patch:
    """The patched copy, the run that made it, and the changes file by file."""

    tree: Path
    original: Path
    run: subprocess.CompletedProcess
    cpu_s: float
    wall_s: float
    diff_path: Path
    changed: Dict[str, tuple] = field(default_factory=dict)  # relative path -> (old, new)
    _second: Optional[subprocess.CompletedProcess] = None

    def diffstat(self) -> Dict[str, tuple]:
        """Relative path -> (hunks, lines added, lines removed) of the unified diff."""
        stats = {}
        for path, (old, new) in self.changed.items():
            lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm=""))
            hunks = sum(1 for x in lines if x.startswith("@@"))
            added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
            removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
            stats[path] = (hunks, added, removed)
        return stats

    def rewritten_classes(self, path: str) -> List[str]:
        """Classes of the patched file that contain a changed line."""
        old, new = self.changed[path]
        matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
        touched = {j + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"
                   for j in range(j1, max(j2, j1 + 1))}
        classes = [n for n in ast.walk(ast.parse(new)) if isinstance(n, ast.ClassDef)]
        names = set()
        for line in touched:
            holders = [c for c in classes if c.lineno <= line <= c.end_lineno]
            if holders:
                names.add(max(holders, key=lambda c: c.lineno).name)
        return sorted(names)

    def module_names(self) -> List[str]:
        return [".".join(Path(p).with_suffix("").parts) for p in sorted(self.changed)]

    def class_spans(self, path: str) -> Dict[str, tuple]:
        """Class name -> (first line, last line) in the patched file."""
        tree = ast.parse(self.changed[path][1])
        return {n.name: (n.lineno, n.end_lineno) for n in ast.walk(tree)
                if isinstance(n, ast.ClassDef)}

    def second_run(self) -> subprocess.CompletedProcess:
        """The same command again, with JSON output: the findings left in the patched tree
        (the first run's cache answers the files it did not change). Run once."""
        if self._second is None:
            self._second = poolguard(*COMMAND, "--format", "json", cwd=self.tree)
            assert self._second.returncode in (0, 1), self._second.stderr
        return self._second

    @staticmethod
    def repo_root() -> Path:
        return Path(__file__).resolve().parents[1]


def poolguard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(cwd.parent / "poolguard-cache")}
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-m", "lint_rules.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def apply(base: Path, version: str = VERSION, command: tuple = COMMAND) -> Patch:
    """Copy the ``version`` tree (0.5.23) under ``base`` and patch it with the real CLI."""
    original = _wheels().source_tree(version)
    tree = base / f"sglang-{version}"
    shutil.copytree(original, tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = poolguard(*command, cwd=tree)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    artifacts = Path(os.environ.get("POOLGUARD_ARTIFACTS") or base)
    artifacts.mkdir(parents=True, exist_ok=True)
    patch = Patch(tree, original, run, cpu, wall, artifacts / f"upstream-{version}.diff")
    _collect(patch)
    return patch


def _collect(patch: Patch) -> None:
    chunks = []
    for file in sorted((patch.tree / "sglang").rglob("*.py")):
        relative = file.relative_to(patch.tree).as_posix()
        old = (patch.original / relative).read_text(encoding="utf-8")
        new = file.read_text(encoding="utf-8")
        if old != new:
            patch.changed[relative] = (old, new)
            chunks.extend(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                               f"a/python/{relative}", f"b/python/{relative}"))
    patch.diff_path.write_text("".join(chunks), encoding="utf-8")


def _wheels():
    path = Path(__file__).resolve().parent / "sglang_wheels.py"
    spec = importlib.util.spec_from_file_location("sglang_wheels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
