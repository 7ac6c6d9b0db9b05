"""Released SGLang sources for the lint corpus tests and the throughput benchmark.

``source_tree("0.5.23")`` downloads the release wheel with ``pip download --no-deps`` (once),
extracts only ``sglang/**/*.py`` and returns the folder that holds the ``sglang`` package.
Everything lives under ``$POOLGUARD_CACHE_DIR`` (default ``~/.cache/sglang-poolguard``) and is
never committed. Run as a script to print the tree's path: ``python tests/sglang_wheels.py 0.5.23``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

CACHE_ENV = "POOLGUARD_CACHE_DIR"
# Written last, so a tree interrupted half-way through extraction is never taken as complete.
_COMPLETE_MARKER = ".complete"
DOWNLOAD_ATTEMPTS = 4


class WheelError(RuntimeError):
    """A release could not be downloaded or unpacked (message is one line)."""


def cache_root() -> Path:
    """Folder that holds ``wheels/`` and ``src/<version>/``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "sglang-poolguard"


def _cached_wheel(wheel_dir: Path, version: str) -> Path | None:
    matches = sorted(wheel_dir.glob(f"sglang-{version}-*.whl"))
    return matches[0] if matches else None


def wheel_path(version: str) -> Path:
    """The release wheel for ``version``, downloaded into the cache on first use."""
    wheel_dir = cache_root() / "wheels"
    cached = _cached_wheel(wheel_dir, version)
    if cached:
        return cached
    wheel_dir.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "--retries", "5", "--timeout", "60",
        "--dest", str(wheel_dir), f"sglang=={version}",
    ]
    # pip retries a refused connection but not a transfer cut half-way (ChunkedEncodingError,
    # IncompleteRead), which a shared CI network does now and then: try the whole download again.
    for attempt in range(1, DOWNLOAD_ATTEMPTS + 1):
        result = subprocess.run(command, capture_output=True, text=True)
        cached = _cached_wheel(wheel_dir, version)
        if result.returncode == 0 and cached is not None:
            return cached
        if "No matching distribution" in result.stderr:
            break  # the release does not exist: asking again cannot help
        if attempt < DOWNLOAD_ATTEMPTS:
            time.sleep(2 ** attempt)
    last_line = (result.stderr.strip().splitlines() or ["no output"])[-1]
    raise WheelError(
        f"pip download sglang=={version} failed after {attempt} attempt(s): {last_line}"
    )


def _extract_python_sources(wheel: Path, dest: Path) -> int:
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("sglang/") and name.endswith(".py"):
                archive.extract(name, dest)
                count += 1
    return count


def source_tree(version: str) -> Path:
    """Folder containing ``sglang/`` (only ``*.py`` files) of release ``version``."""
    tree = cache_root() / "src" / version
    if (tree / _COMPLETE_MARKER).is_file():
        return tree
    wheel = wheel_path(version)
    tree.parent.mkdir(parents=True, exist_ok=True)
    # Extract beside the target and rename, so concurrent runs never see a partial tree.
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=tree.parent))
    try:
        if _extract_python_sources(wheel, staging) == 0:
            raise WheelError(f"{wheel.name} holds no sglang/*.py files")
        (staging / _COMPLETE_MARKER).write_text(wheel.name + "\n")
        shutil.rmtree(tree, ignore_errors=True)
        staging.rename(tree)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tree


def python_files(tree: Path, subdir: str = "sglang") -> list[Path]:
    """Every ``*.py`` below ``tree/subdir``, sorted, so runs and snapshots are deterministic."""
    return sorted((tree / subdir).rglob("*.py"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/sglang_wheels.py VERSION", file=sys.stderr)
        return 2
    try:
        print(source_tree(argv[0]))
    except (WheelError, OSError, zipfile.BadZipFile) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
