"""A nineteenth hostile round (attack19), through the real ``poolguard`` subprocess on real
files: a safe fix offered where the pool attribute is set twice, and configuration values
that are no Python identifiers."""
from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from clirun import poolguard, write

RESET_POOL = dedent("""\
    from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class B(FlashInferAttnBackend):
        def __init__(self, model_runner, enable=True):
            super().__init__(model_runner)
            kv_pool = model_runner.token_to_kv_pool
            self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)
            self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool) else None
            {reset}

        def forward_decode(self, q, k, v, layer, fb):
            return self.use_sliding_window_kv_pool
""")


@pytest.mark.parametrize("reset", [
    "if not enable:\n            self._swa_kv_pool = None",  # reset under a condition
    "\n    def disable(self):\n        self._swa_kv_pool = None",  # reset by another method
])
def test_no_safe_flag_property_where_the_pool_attribute_is_set_twice(tmp_path, reset):
    """The property ``_swa_kv_pool is not None`` reads what the flag read only while the pool
    attribute keeps the value it was resolved to: set a second time (None under a condition,
    by another method), an SWA pool with ``enable=False`` read True before and False after."""
    tree = write(tmp_path / "t", {"b.py": RESET_POOL.format(reset=reset)})
    rows = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".",
                                cwd=tree, expect=1).stdout)
    flagged = [r for r in rows if r["code"] == "KVP002"]
    assert flagged and not any(r["fixable"] for r in flagged), rows
    before = (tree / "b.py").read_text()
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=tree, expect=1)
    assert (tree / "b.py").read_text() == before


def test_the_flag_property_is_still_offered_where_the_pool_is_set_once(tmp_path):
    tree = write(tmp_path / "t", {"b.py": RESET_POOL.format(reset="")})
    rows = json.loads(poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".",
                                cwd=tree, expect=1).stdout)
    assert any(r["code"] == "KVP002" and r["fixable"] for r in rows), rows


@pytest.mark.parametrize("how", ["flag", "blank flag", "config"])
def test_an_empty_pool_attribute_is_refused_not_read_as_the_default(tmp_path, how):
    """``--kvp-pool-attr ''`` (or ``kvp-pool-attr =`` in a config) names no identifier: a
    usage error, as a keyword is, never silently the default attribute."""
    files = {"t.py": RESET_POOL.format(reset="")}
    if how == "config":
        files["setup.cfg"] = "[poolguard]\nkvp-pool-attr =\n"
    tree = write(tmp_path / "t", files)
    flags = [] if how == "config" else ["--isolated", "--kvp-pool-attr",
                                        "" if how == "flag" else "  "]
    done = poolguard("lint", "--no-cache", *flags, "t.py", cwd=tree, expect=2)
    assert "kvp-pool-attr must be a Python identifier" in done.stderr


EXAMPLE = (Path(__file__).resolve().parents[2] / "lint_rules" / "examples"
           / "trtllm_backend_prefix.py").read_text()


@pytest.mark.parametrize("mode", ["--fix", "--diff"])
def test_a_file_libcst_crashes_on_keeps_its_findings_unfixed(tmp_path, mode):
    """CPython parses a 10,000-term ``and`` chain; libcst's native parser dies on it. The fix
    is not applied, said so, and the file keeps every finding a lint of it has (not one
    KVP900 in their place): the ones a person must act on never vanish."""
    source = EXAMPLE + "\nx = " + " and ".join(["a"] * 10_000) + "\n"
    tree = write(tmp_path / "t", {"a.py": source})
    linted = poolguard("lint", "--isolated", "--no-cache", "a.py", cwd=tree, expect=1).stdout
    done = poolguard("lint", "--isolated", "--no-cache", mode, "a.py", cwd=tree, expect=1)
    codes = [line.split()[1] for line in linted.splitlines()]
    assert codes == ["KVP001", "KVP002", "KVP003", "KVP003"], linted
    if mode == "--fix":  # what is left, each without its [*]
        assert [line.split()[1] for line in done.stdout.splitlines()] == codes, done.stdout
        assert "[*]" not in done.stdout
    assert "KVP900" not in done.stdout + done.stderr
    assert "a.py: fix not applied: libcst on this file" in done.stderr, done.stderr
    assert "4 findings would remain" in done.stderr or mode == "--fix"
    assert (tree / "a.py").read_text() == source


def test_a_file_too_large_for_libcst_offers_no_fix(tmp_path):
    """Over ``MAX_FIX_CHARS`` libcst would need gigabytes (15 GB for 8 Mi characters): the
    file is linted, its findings shown without ``[*]``, and ``--fix`` leaves it as it is."""
    from lint_rules.engine import MAX_FIX_CHARS

    filler = "x = [" + "1, " * 30 + "]\n"
    source = EXAMPLE + filler * (MAX_FIX_CHARS // len(filler) + 1)
    tree = write(tmp_path / "t", {"a.py": source})
    linted = poolguard("lint", "--isolated", "--no-cache", "a.py", cwd=tree, expect=1).stdout
    assert [line.split()[1] for line in linted.splitlines()] == [
        "KVP001", "KVP002", "KVP003", "KVP003"] and "[*]" not in linted, linted
    poolguard("lint", "--isolated", "--no-cache", "--fix", "a.py", cwd=tree, expect=1)
    assert (tree / "a.py").read_text() == source


def _flake8_codes(cwd, env) -> list:
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "flake8", "--select", "KVP", "t.py"], cwd=cwd,
                          env={**os.environ, **env}, capture_output=True, text=True)
    return sorted(line.split()[1] for line in done.stdout.splitlines())


@pytest.mark.parametrize("layout", ["home config", "local plugins"])
def test_config_discovery_stops_where_flake8_stops(tmp_path, layout):
    """flake8 (since 4.0) never reads a config in the home folder for a project below it, and a
    file holding only ``[flake8:local-plugins]`` is the project's config (the search ends
    there): poolguard picks the same file, so the two never lint one tree differently."""
    home = tmp_path / "home"
    files = {"setup.cfg": "[flake8]\nextend-ignore = KVP001,KVP003\n",
             "proj/sub/t.py": EXAMPLE}
    if layout == "local plugins":
        home = tmp_path / "elsewhere"
        files["proj/setup.cfg"] = "[flake8:local-plugins]\npaths = .\n"
    tree = write(tmp_path, {f"home/{k}" if layout == "home config" else k: v
                            for k, v in files.items()})
    root = tree / "home" if layout == "home config" else tree
    cwd = root / "proj" / "sub"
    env = {"HOME": str(home)}
    done = poolguard("lint", "--no-cache", "--format", "json", "t.py", cwd=cwd, env=env,
                     expect=1)
    ours = sorted(row["code"] for row in json.loads(done.stdout))
    assert ours == ["KVP001", "KVP002", "KVP003", "KVP003"]
    assert ours == _flake8_codes(cwd, env)
