"""List the SGLang 0.5.23 source files the GPU benchmarks import, for the carried folder.

Runs the CPU smoke path of ``gpu_bug_replay`` (one guarded case, through SGLang's plugin
loader) and of ``gpu_bounds`` in this process, then prints, one per line and relative to
site-packages, every file (bar compiled extensions and caches) in each SGLang package
directory that was imported from, plus the JIT kernel sources whose presence
``sglang.kernels.jit`` checks at import. Whole directories rather than the exact modules:
on a GPU host other branches of the same packages run, and some read data files beside
them. Used by ``gpu_build_carry.sh``; needs torch and SGLang (the CPU test env).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
SKIP = {".so", ".pyc"}


def exercise() -> None:
    """Import and run what the GPU scripts run, at the CPU smoke shape."""
    import gpu_bounds
    import gpu_bug_replay

    os.environ["SGLANG_POOLGUARD"] = "bounds"
    with contextlib.redirect_stdout(io.StringIO()):
        gpu_bug_replay.run_case("off-by-one, bounds", gpu_bug_replay.SMOKE, "cpu")
        gpu_bounds.main(["--smoke", "--iters", "1", "--repeats", "1"])


def sglang_files() -> list:
    import sglang

    root = Path(sglang.__file__).resolve().parents[1]
    dirs = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and Path(path).resolve().is_relative_to(root / "sglang"):
            dirs.add(Path(path).resolve().parent)
    jit = root / "sglang" / "kernels" / "jit"
    files = {p for d in dirs for p in d.iterdir() if p.is_file() and p.suffix not in SKIP}
    files |= {p for sub in ("include", "csrc") for p in (jit / sub).rglob("*") if p.is_file()}
    return sorted(str(p.relative_to(root)) for p in files if "__pycache__" not in p.parts)


if __name__ == "__main__":
    exercise()
    print("\n".join(sglang_files()))
