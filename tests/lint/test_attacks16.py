"""A sixteenth hostile round (attack16): what the pool attribute of a safe fix may hold;
through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

from textwrap import dedent

import pytest

from clirun import poolguard, write

# A type flag (KVP002) beside a store into the pool attribute the property fix would read.
TYPE_FLAG = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = {value}
            self.use_swa = isinstance(self.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_swa:
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            return q
""")


@pytest.mark.parametrize("value", [
    "None",  # never a pool: the property would say "not SWA" for every model
    "model_runner.token_to_kv_pool_allocator",  # never None: "SWA" for every model
    "4", "[]", "f'{model_runner}'",
])
def test_a_pool_attr_that_holds_no_pool_is_never_fixed_into(tmp_path, value):
    # the safe KVP002 fix made `use_swa` a property `self._swa_kv_pool is not None` whatever
    # the class stored there: a constant, the allocator (which the fix's own resolver asks
    # for the pool) or a number, so the flag read always true or always false
    source = TYPE_FLAG.format(value=value)
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--no-cache", "--isolated", "--fix", "b.py", cwd=root, expect=1)
    assert (root / "b.py").read_text() == source, done.stderr
    assert "b.py:8:9: KVP002 self.use_swa" in done.stdout, done.stdout


@pytest.mark.parametrize("value", [
    "self.token_to_kv_pool if isinstance(self.token_to_kv_pool, SWAKVPool) else None",
    "self._resolve_swa_kv_pool(model_runner)",
])
def test_a_pool_attr_holding_the_pool_or_none_is_still_fixed_into(tmp_path, value):
    root = write(tmp_path / "t", {"b.py": TYPE_FLAG.format(value=value)})
    poolguard("lint", "--no-cache", "--isolated", "--fix", "b.py", cwd=root)
    fixed = (root / "b.py").read_text()
    assert "def use_swa(self):" in fixed and "self.use_swa = isinstance" not in fixed
