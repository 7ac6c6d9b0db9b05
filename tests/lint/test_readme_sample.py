"""The README's sample finding is what ``poolguard lint`` prints for the bundled example today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "lint_rules" / "examples"


def test_readme_sample_is_the_real_output():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- BEGIN sample -->\n", 1)[1].split("<!-- END sample -->", 1)[0]
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", "--isolated",
                           "--no-cache", "trtllm_backend_prefix.py"], cwd=EXAMPLES,
                          capture_output=True, text=True, timeout=120)
    assert block == f"```text\n{done.stdout}```\n", (
        "update the README's sample block to what `poolguard lint --isolated "
        "trtllm_backend_prefix.py` prints in lint_rules/examples")
