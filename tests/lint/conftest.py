"""Shared helpers for the lint-core tests."""
import subprocess
import sys

import pytest


@pytest.fixture
def run_flake8(tmp_path):
    """Run the real flake8 (``python -m flake8``) in ``tmp_path`` with the given files."""

    def run(files: dict, *args: str):
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "flake8", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done

    return run
