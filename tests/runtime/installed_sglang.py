"""The installed SGLang, for tests that run it: where its files are, found without importing
SGLang (only ``runtime_guard.demo.scenarios.sglang()`` may import it: a bare import of
``sglang.srt.model_executor`` dies on some releases' torchvision ops), so a test can skip,
saying why, on a release that lacks what it exercises; and a child interpreter that runs it with
only the guard switches a test gives, answering in JSON."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = str(Path(__file__).parent)  # the runtime tests' helper modules, first on a child's path


def package_dir() -> Path | None:
    """The folder of the installed ``sglang`` package; None when SGLang is not installed."""
    spec = importlib.util.find_spec("sglang")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def child_env(**switches: str) -> dict:
    """This process's environment for a child, less every ``SGLANG_*`` variable (the child gets
    only ``switches``), with the runtime tests' folder first on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env.update(switches)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [HERE, env.get("PYTHONPATH")]))
    return env


def child_answer(code: str, timeout: float = 300, **switches: str) -> dict:
    """The JSON object ``python -c code`` prints last, run with ``child_env(**switches)``; the
    child must exit 0."""
    done = subprocess.run([sys.executable, "-c", code], env=child_env(**switches),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
