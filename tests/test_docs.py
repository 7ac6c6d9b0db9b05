"""What the README tells a newcomer to copy is the real thing: the GitHub Actions workflow is
``docs/github-workflow.yml`` verbatim, and its lint step, run as Actions runs it, leaves an
uploadable SARIF file with and without a baseline; the CPU install line pins what
``requirements/`` pins."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "docs" / "github-workflow.yml"
README = (ROOT / "README.md").read_text(encoding="utf-8")
BACKEND = (ROOT / "lint_rules" / "examples" / "trtllm_backend_prefix.py").read_text("utf-8")


def _block(name: str) -> str:
    return README.split(f"<!-- BEGIN {name} -->\n", 1)[1].split(f"<!-- END {name} -->", 1)[0]


def test_readme_shows_the_workflow_file_verbatim():
    assert f"```yaml\n{WORKFLOW.read_text(encoding='utf-8')}```\n" in _block("ci")


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_workflow_is_complete():
    flow = _workflow()
    assert set(flow[True]) == {"push", "pull_request"}  # YAML 1.1 reads the key `on` as True
    assert flow["permissions"] == {"contents": "read", "security-events": "write"}
    (job,) = flow["jobs"].values()
    uses = [step.get("uses", "").split("@")[0] for step in job["steps"]]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    upload = job["steps"][uses.index("github/codeql-action/upload-sarif")]
    assert "always()" in upload["if"]
    lint = next(step["run"] for step in job["steps"] if "poolguard lint" in step.get("run", ""))
    assert f"> {upload['with']['sarif_file']}" in lint  # uploads the file the lint writes


def _run_lint_steps(checkout: Path, cache: Path) -> subprocess.CompletedProcess:
    """Every ``run:`` step but the install (this environment already has poolguard), in order,
    under the job's env, with the shell Actions uses for ``run`` on Linux (``bash -e``)."""
    (job,) = _workflow()["jobs"].values()
    env = {**os.environ, **job["env"], "POOLGUARD_CACHE_DIR": str(cache),
           "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])}
    for step in job["steps"]:
        if "run" in step and "pip install" not in step["run"]:
            done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=checkout, env=env,
                                  capture_output=True, text=True, timeout=300)
    return done


def _uploadable(sarif_path: Path) -> list:
    """The checks upload-sarif makes that a broken run fails: a non-empty SARIF 2.1.0 log with
    one run per tool and results that point at files of the checkout; returns the results."""
    log = json.loads(sarif_path.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] and run["tool"]["driver"]["rules"]
    for result in run["results"]:
        place = result["locations"][0]["physicalLocation"]
        assert (sarif_path.parent / place["artifactLocation"]["uri"]).is_file()
        assert place["region"]["startLine"] >= 1 and result["ruleId"].startswith("KVP")
    return run["results"]


def test_workflow_lint_step_without_and_with_a_baseline(tmp_path):
    checkout = tmp_path / "checkout"
    backend = checkout / "python" / "sglang" / "srt" / "layers" / "attention" / "trtllm_mha.py"
    backend.parent.mkdir(parents=True)
    backend.write_text(BACKEND, encoding="utf-8")
    (backend.parent / "clean.py").write_text("x = 1\n", encoding="utf-8")

    no_baseline = _run_lint_steps(checkout, tmp_path / "cache")
    assert no_baseline.returncode == 1, no_baseline.stderr  # findings fail the job
    assert {r["ruleId"] for r in _uploadable(checkout / "poolguard.sarif")} >= {"KVP001"}

    shutil.copy(checkout / "poolguard.sarif", tmp_path / "first.sarif")
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "poolguard"), "lint",
                    "--write-baseline", "poolguard-baseline.json", "python/sglang"],
                   cwd=checkout, check=True, capture_output=True, timeout=300)
    known = _run_lint_steps(checkout, tmp_path / "cache")
    assert known.returncode == 0, known.stderr  # the baseline hides every known finding
    assert _uploadable(checkout / "poolguard.sarif") == []


def test_cpu_install_lines_pin_what_requirements_pin():
    requirements = (ROOT / "requirements" / "sglang-cpu.txt").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^(torch|torchvision)==(\S+)$", requirements, re.M))
    shown = re.findall(r"torch==(\S+) torchvision==([^\s`]+)", README + requirements)
    assert len(shown) >= 3  # the CPU-host install, the troubleshooting fix, the pins' comment
    assert set(shown) == {(pins["torch"], pins["torchvision"])}
