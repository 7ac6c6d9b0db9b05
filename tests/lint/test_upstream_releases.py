"""The codemods on whole released trees beyond the pinned 0.5.23 patch: ``poolguard lint --fix``
and ``--fix --unsafe-fixes`` on each release's ``python/sglang``. Every rewritten file compiles,
a second run changes nothing, the lint of the result lists no fix left to apply, and the patch
has the size docs/upstream-patch.md states for that release.

Opt-in (two CLI runs of 30-90 s per release and mode): ``POOLGUARD_RELEASES=all`` or a comma
list (``0.5.14,0.5.20``). Sources come from tests/sglang_wheels.py (cached, never committed).
The runtime replay of each rewritten class, patched against released, needs the release's own
import set and is run by hand (docs/upstream-patch.md, "Across releases").
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

# files, hunks, lines added, lines removed of ``--fix --unsafe-fixes`` (``--fix`` alone: none)
UNSAFE = {
    "0.5.12": (1, 20, 57, 33),
    "0.5.14": (4, 32, 151, 52),
    "0.5.16": (4, 35, 157, 58),
    "0.5.18": (5, 46, 203, 76),
    "0.5.19": (6, 53, 208, 81),  # trtllm's gates on the flag it inherits (taint12 sees them)
    "0.5.20": (5, 48, 202, 75),
    "0.5.21": (5, 48, 203, 76),
    "0.5.22": (5, 47, 199, 72),
    "0.5.23": (5, 50, 203, 76),
}
SAFE = ("lint", "--fix", "sglang")
UNSAFE_COMMAND = ("lint", "--fix", "--unsafe-fixes", "sglang")
ASKED = os.environ.get("POOLGUARD_RELEASES", "")
RELEASES = sorted(UNSAFE) if ASKED == "all" else [v for v in ASKED.split(",") if v]

pytestmark = pytest.mark.skipif(not RELEASES, reason="opt-in: POOLGUARD_RELEASES=all or a list")


def _patching():
    path = Path(__file__).resolve().parents[1] / "upstream_patch.py"
    spec = importlib.util.spec_from_file_location("poolguard_upstream_patch", path)
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclass resolves annotations through it
        spec.loader.exec_module(module)
    return module


def _checked(patching, base: Path, version: str, command: tuple):
    patch = patching.apply(base, version, command)
    assert patch.run.returncode in (0, 1), patch.run.stderr
    assert "Traceback" not in patch.run.stderr
    for path, (_, new) in patch.changed.items():
        compile(new, path, "exec")
    again = patching.poolguard(*command, "--format", "json", cwd=patch.tree)
    assert again.returncode in (0, 1), again.stderr
    for path, (_, new) in patch.changed.items():
        assert (patch.tree / path).read_text(encoding="utf-8") == new  # nothing more to do
    assert not [path for path in sorted((patch.tree / "sglang").rglob("*.py"))
                if path.relative_to(patch.tree).as_posix() not in patch.changed
                and path.read_bytes() != (patch.original / path.relative_to(patch.tree))
                .read_bytes()]
    # what the command applies: the safe fixes, and with --unsafe-fixes the class rewrites
    applies = ("safe", "unsafe") if "--unsafe-fixes" in command else ("safe",)
    listed = [(row["path"], row["line"], row["code"]) for row in json.loads(again.stdout)
              if row["fixable"] or any(fix["applicability"] in applies
                                       for fix in row["fixes"])]
    assert listed == []
    return patch


@pytest.mark.parametrize("version", RELEASES)
def test_safe_fixes_leave_a_release_as_it_was_or_fixed(tmp_path, version):
    patch = _checked(_patching(), tmp_path, version, SAFE)
    assert patch.changed == {}  # no flag on these releases is exactly the pool test


@pytest.mark.parametrize("version", RELEASES)
def test_unsafe_fixes_patch_a_release_as_documented(tmp_path, version):
    if version not in UNSAFE:
        pytest.skip(f"no documented patch size for {version}")
    patch = _checked(_patching(), tmp_path, version, UNSAFE_COMMAND)
    stats = patch.diffstat().values()
    assert (len(patch.changed), *(sum(column) for column in zip(*stats))) == UNSAFE[version]
