"""A thirteenth hostile round on the CLI and the flake8 plugin (attack13), mostly on the
package-wide analysis (``poolguard lint DIR`` follows imports, bases and mixins between
modules): through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from textwrap import dedent

from clirun import STALE, write

# A backend of its own module whose findings another module's trouble must not cost.
IMPORTER = dedent("""\
    from q.base import ParentAttnBackend, helper


    class ChildAttnBackend(ParentAttnBackend):
        def __init__(self, model_runner):
            self.swa_pool = model_runner.token_to_kv_pool
            self.x = helper(model_runner.token_to_kv_pool)
""")


def _limited_memory():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_a_module_the_run_refused_is_never_read_by_the_package_analysis(tmp_path):
    # a module over the size limit (here a sparse 4 GiB file) is refused unread by the run,
    # but the package index of the file importing it read it whole from disk: with memory
    # bounded, 'q/c.py: internal error, please report: MemoryError' and c.py's finding lost
    root = write(tmp_path / "t", {"q/__init__.py": "", "q/c.py": IMPORTER, "q/d.py": STALE})
    with open(root / "q/base.py", "wb") as handle:
        handle.truncate(4 << 30)
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", "--format", "json",
                           "q"], cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=_limited_memory)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == ["poolguard: error: q/base.py: larger than 268435456 bytes"]
    assert sorted((r["path"], r["line"], r["code"]) for r in json.loads(done.stdout)) == [
        ("q/c.py", 6, "KVP001"), ("q/d.py", 3, "KVP001")]
