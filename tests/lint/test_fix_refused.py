"""The KVP003 gate fix is refused where the rewrite would change what the code reads (issue
16's mutants): a gate read before the flag is defined in the same method reads the old value
(a base class's, a class default), not the pool test, so ``--fix`` leaves it, says so (no
``[*]``) and still fixes the gate that comes after the definition.
"""
from __future__ import annotations

from textwrap import dedent

from clirun import poolguard, write

BEFORE = dedent("""\
    class Base(AttentionBackend):
        use_sliding_window_kv_pool = False


    class DemoAttnBackend(Base):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            if self.use_sliding_window_kv_pool:
                self.early = 1
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
            if self.use_sliding_window_kv_pool:
                self.late = 1
""")
SAME_LINE = BEFORE.replace(
    "self.use_sliding_window_kv_pool = self._swa_kv_pool is not None",
    "self.use_sliding_window_kv_pool = (self._swa_kv_pool is not None\n"
    "                                           if not self.use_sliding_window_kv_pool else 1)")


def test_a_gate_read_before_its_flag_is_defined_is_not_rewritten(tmp_path):
    write(tmp_path, {"before.py": BEFORE, "same_line.py": SAME_LINE})
    lint = poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", ".", cwd=tmp_path,
                     expect=1).stdout
    assert "before.py:8:12: KVP003 gate" in lint  # reported, without [*]: no safe fix
    assert "before.py:11:12: KVP003 [*]" in lint
    poolguard("lint", "--isolated", "--no-cache", "--select", "KVP003", "--fix", ".",
              cwd=tmp_path, expect=1)
    fixed = (tmp_path / "before.py").read_text().splitlines()
    assert fixed[7] == "        if self.use_sliding_window_kv_pool:"  # read before: kept
    assert fixed[10] == "        if self._swa_kv_pool is not None:"  # read after: fixed
    same_line = (tmp_path / "same_line.py").read_text()
    assert "if not self.use_sliding_window_kv_pool else 1" in same_line
