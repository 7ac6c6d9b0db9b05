"""One interpreter observing SGLang's backends, patched by the resolver codemod or not
(run by tests/runtime/test_patched_backends.py and tests/lint/test_upstream_patch.py).

``python patched_child.py TREE MODULES``: with a TREE (``-`` for none), every module whose file
there differs from the installed SGLang is imported from the tree, ahead of site-packages (the
installed package keeps the data files and compiled dependencies that an unpacked tree of
``*.py`` files lacks); with ``-`` the installed SGLang runs as released. Imports each module of
the comma list MODULES, then replays every backend (``patched_scenarios.replay``). Prints one
JSON object as its last line on stdout.
"""

from __future__ import annotations

import filecmp
import importlib
import importlib.abc
import importlib.util
import json
import os
import sys
from pathlib import Path

import kernel_shim
from installed_sglang import package_dir


class _Overlay(importlib.abc.MetaPathFinder):
    """Finds the patched modules (by dotted name) in the patched tree, before site-packages."""

    def __init__(self, modules: dict) -> None:
        self.modules = modules

    def find_spec(self, fullname, path=None, target=None):
        file = self.modules.get(fullname)
        return importlib.util.spec_from_file_location(fullname, file) if file else None


def changed_modules(tree: Path) -> dict:
    """Dotted name -> patched file, for every tree file that differs from the installed one."""
    installed = package_dir().parent
    found = {}
    for file in sorted((tree / "sglang").rglob("*.py")):
        relative = file.relative_to(tree)
        original = installed / relative
        if not original.is_file() or not filecmp.cmp(file, original, shallow=False):
            name = ".".join(relative.with_suffix("").parts)
            found[name.removesuffix(".__init__")] = str(file)
    return found


def imports(modules) -> dict:
    """Each module: imported, or the exception it raises (class and first line)."""
    seen = {}
    for name in modules:
        try:
            importlib.import_module(name)
            seen[name] = "ok"
        except Exception as err:  # noqa: BLE001 - the type is the observation
            seen[name] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return seen


def main() -> None:
    tree = None if sys.argv[1] == "-" else Path(sys.argv[1])
    modules = changed_modules(tree) if tree else {}
    if modules:
        sys.meta_path.insert(0, _Overlay(modules))
    kernel_shim.install()  # sgl_kernel only: lets the FlashAttention and XPU modules import
    from runtime_guard.demo import scenarios

    scenarios.sglang()  # SGLang's CPU-safe import, now through the overlay
    result = {"overlaid": sorted(modules), "modules": imports(sys.argv[2].split(","))}
    import patched_scenarios

    result["backends"] = patched_scenarios.replay()
    print(json.dumps(result))


if __name__ == "__main__":
    os.environ["SGLANG_POOLGUARD"] = "check"  # what the real plugin loader reads
    main()
