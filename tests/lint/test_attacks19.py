"""A nineteenth hostile round (attack19), through the real ``poolguard`` subprocess on real
files: a safe fix offered where the pool attribute is set twice, and configuration values
that are no Python identifiers."""
from __future__ import annotations

import json
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
