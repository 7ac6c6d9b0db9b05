"""Bundled backend sources for ``poolguard demo`` and the tests (read as text, never executed)."""
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent
PREFIX_EXAMPLE = EXAMPLES_DIR / "trtllm_backend_prefix.py"
FIXED_EXAMPLE = EXAMPLES_DIR / "trtllm_backend_fixed.py"


def read_example(name: str) -> str:
    """Source text of a bundled example, e.g. ``read_example("trtllm_backend_prefix.py")``."""
    return (EXAMPLES_DIR / name).read_text(encoding="utf-8")
