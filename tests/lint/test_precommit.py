"""The pre-commit hooks as users wire them: real ``pre-commit run`` on a scratch git repo.

The hook repository is a git snapshot of this project's working tree (tracked and untracked,
not ignored files), so uncommitted work is what gets tested; pre-commit clones it at that
commit, builds its own virtualenv and pip-installs the project from it, exactly as it would
from GitHub. The plain flake8 route is wired as a ``repo: local`` hook with the project as an
``additional_dependencies`` entry, the local stand-in for ``[sglang-poolguard]`` from PyPI.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from samples import GATED

PROJECT = Path(__file__).resolve().parents[2]
SKIP_PARTS = {".git", ".tox", ".venv", "__pycache__", "build", "dist", ".cache", ".pytest_cache",
              ".hypothesis", ".whl"}
CLEAN = "def f():\n    return 1\n"


def git(*args, cwd: Path) -> str:
    command = ["git", "-c", "user.name=poolguard-test", "-c", "user.email=test@invalid",
               "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args]
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout


def project_files() -> list:
    """Relative paths of the project's files that a clean clone plus local edits would hold."""
    if (PROJECT / ".git").exists():
        listed = git("ls-files", "-co", "--exclude-standard", "-z", cwd=PROJECT).split("\0")
    else:  # an unpacked source tree without git metadata
        listed = [str(p.relative_to(PROJECT)) for p in PROJECT.rglob("*") if p.is_file()]
    return [name for name in listed
            if name and not SKIP_PARTS & set(Path(name).parts) and (PROJECT / name).is_file()
            and not any(part.endswith(".egg-info") for part in Path(name).parts)]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple:
    """A committed snapshot of the working tree: ``(path, sha)`` for ``repo:``/``rev:``."""
    root = tmp_path_factory.mktemp("hook-repo")
    for name in project_files():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, target)
    git("init", "-q", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "snapshot for the pre-commit test", cwd=root)
    return root, git("rev-parse", "HEAD", cwd=root).strip()


@pytest.fixture(scope="module")
def precommit_home(tmp_path_factory) -> Path:
    """One PRE_COMMIT_HOME for the module, so each hook environment is built only once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(*args, cwd: Path, home: Path, cache: Path):
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), POOLGUARD_CACHE_DIR=str(cache))
    env.pop("PRE_COMMIT_ALLOW_NO_CONFIG", None)
    env.pop("VIRTUAL_ENV", None)
    command = [sys.executable, "-m", "pre_commit", *args, "--color", "never"]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def scratch_repo(root: Path, config: str, files: dict) -> Path:
    root.mkdir()
    git("init", "-q", cwd=root)
    (root / ".pre-commit-config.yaml").write_text(config)
    for name, text in files.items():
        (root / name).write_text(text)
    git("add", "-A", cwd=root)
    return root


def test_poolguard_hooks_fail_on_findings_fix_them_and_pass(tmp_path, hook_repo, precommit_home):
    repo, sha = hook_repo
    config = dedent(f"""\
        repos:
          - repo: {repo.as_posix()}
            rev: {sha}
            hooks:
              - id: poolguard-fix
                stages: [manual]
              - id: poolguard
    """)
    work = scratch_repo(tmp_path / "work", config, {"backend.py": GATED, "util.py": CLEAN})

    failing = pre_commit("run", "poolguard", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "backend.py:6:12: KVP003 [*]" in failing.stdout

    fixing = pre_commit("run", "poolguard-fix", "--all-files", "--hook-stage", "manual",
                        cwd=work, home=precommit_home, cache=tmp_path / "cache")
    assert fixing.returncode == 1 and "files were modified by this hook" in fixing.stdout
    assert "if self._swa_kv_pool is not None:" in (work / "backend.py").read_text()

    passing = pre_commit("run", "poolguard", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout


def test_plain_flake8_hook_with_the_plugin_installed(tmp_path, hook_repo, precommit_home):
    repo, _ = hook_repo
    config = dedent(f"""\
        repos:
          - repo: local
            hooks:
              - id: flake8
                name: flake8
                entry: flake8
                language: python
                types: [python]
                additional_dependencies: ["{repo.as_posix()}"]
    """)
    work = scratch_repo(tmp_path / "work", config, {"backend.py": GATED, "util.py": CLEAN})
    failing = pre_commit("run", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "backend.py:6:12: KVP003 " in failing.stdout

    (work / "backend.py").write_text(CLEAN)
    passing = pre_commit("run", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert passing.returncode == 0, passing.stdout + passing.stderr


def readme_hook(marker: str) -> str:
    """The README's pre-commit configuration block that contains ``marker``, as printed."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- BEGIN hooks -->", 1)[1].split("<!-- END hooks -->", 1)[0]
    blocks = [block.split("\n", 1)[1].split("```", 1)[0] for block in section.split("```yaml")[1:]]
    (found,) = [block for block in blocks if marker in block]
    return found


def test_local_system_hook_from_the_readme(tmp_path, precommit_home, monkeypatch):
    """The README's ``repo: local`` hook, verbatim: the installed ``poolguard``, no hook
    repository."""
    config = readme_hook("repo: local")
    work = scratch_repo(tmp_path / "work", config, {"backend.py": GATED, "util.py": CLEAN})
    # the environment the package is installed in comes first, as in an activated venv
    monkeypatch.setenv("PATH", os.pathsep.join((os.path.dirname(sys.executable),
                                                os.environ.get("PATH", ""))))
    failing = pre_commit("run", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "backend.py:" in failing.stdout and "KVP003 [*]" in failing.stdout
    (work / "backend.py").write_text(CLEAN)
    passing = pre_commit("run", "--all-files", cwd=work, home=precommit_home,
                         cache=tmp_path / "cache")
    assert passing.returncode == 0, passing.stdout + passing.stderr
