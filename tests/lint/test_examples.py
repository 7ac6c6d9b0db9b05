"""The bundled backend examples: exact findings on the pre-fix one, none on the fixed one."""
import libcst as cst

from lint_rules.engine import ALL_CODES, DEFAULT_CODES, fix_source, lint_source
from lint_rules.examples import FIXED_EXAMPLE, PREFIX_EXAMPLE, read_example

PREFIX = read_example("trtllm_backend_prefix.py")
FIXED = read_example("trtllm_backend_fixed.py")


def line_of(source: str, text: str) -> int:
    [number] = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    return number


def test_examples_ship_inside_the_package():
    assert PREFIX_EXAMPLE.is_file() and FIXED_EXAMPLE.is_file()
    folder = PREFIX_EXAMPLE.parent
    assert (folder.name, folder.parent.name) == ("examples", "lint_rules")


def test_prefix_example_findings_are_exact():
    flag = line_of(PREFIX, "self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)")
    pool = line_of(PREFIX, "self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool)")
    page_table = line_of(PREFIX, "if not self.use_sliding_window_kv_pool:")
    cache_loc = line_of(PREFIX, "        if self.use_sliding_window_kv_pool:")
    found = lint_source(PREFIX, codes=ALL_CODES)
    assert {(f.line, f.code) for f in found} == {
        (flag, "KVP002"),
        (pool, "KVP001"),
        (page_table, "KVP003"),
        (cache_loc, "KVP003"),
    }
    assert len(found) == 4
    # the gates test a type flag, not the pool: rewriting them alone would change behaviour
    assert {f.code for f in found if f.fixable} == {"KVP002"}


def test_fixed_example_is_clean_with_every_code():
    assert lint_source(FIXED, codes=ALL_CODES) == []


def test_fixing_the_prefix_example_leaves_only_the_stale_pool():
    fixed, left = fix_source(PREFIX)
    cst.parse_module(fixed)
    assert "self.use_sliding_window_kv_pool = isinstance" not in fixed
    assert "    @property\n    def use_sliding_window_kv_pool(self):" in fixed
    assert 'return getattr(self, "_swa_kv_pool", None) is not None' in fixed
    assert "if not self.use_sliding_window_kv_pool:" in fixed  # readers keep working
    relint = lint_source(fixed, codes=DEFAULT_CODES)
    # the pool itself is still kept from the active pool (KVP001: the unsafe resolver fix), so
    # the gates reading the property over it stay stale with it and say to resolve it
    assert relint == left and [f.code for f in relint] == ["KVP001", "KVP003", "KVP003"]
    assert all("resolve self._swa_kv_pool" in f.message for f in relint[1:])
    assert fix_source(fixed) == (fixed, left)  # idempotent
