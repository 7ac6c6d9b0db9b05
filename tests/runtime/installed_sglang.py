"""Where the installed SGLang's files are, found without importing SGLang (only
``runtime_guard.demo.scenarios.sglang()`` may import it: a bare import of
``sglang.srt.model_executor`` dies on some releases' torchvision ops). Tests read a release's
files to skip, saying why, on one that lacks what they exercise."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir() -> Path | None:
    """The folder of the installed ``sglang`` package; None when SGLang is not installed."""
    spec = importlib.util.find_spec("sglang")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent
