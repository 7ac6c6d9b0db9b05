"""Fixtures shared by tests/lint and tests/runtime."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def upstream_patch(tmp_path_factory, request):
    """SGLang 0.5.23 patched by ``poolguard lint --fix --unsafe-fixes`` (``tests/upstream_patch``),
    made once per session; the path of the full diff is printed."""
    path = Path(__file__).parent / "upstream_patch.py"
    spec = importlib.util.spec_from_file_location("poolguard_upstream_patch", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass resolves annotations through it
    spec.loader.exec_module(module)
    patch = module.apply(tmp_path_factory.mktemp("upstream"))
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"upstream patch: full diff in {patch.diff_path}")
    return patch
