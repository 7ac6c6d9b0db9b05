"""What ``--unsafe-fixes`` promises, through the real CLI (issue 14, the blind tester's items).

A class the codemod declines is never counted as fixed: a plain lint says its hidden fixes *may*
apply, ``--fix``/``--diff --unsafe-fixes`` print one line per declined class with the reason; a
rewrite keeps the class's own SWA test (its tuple, its try/except-bound names) and adds no
import; ``--unsafe-fixes`` without ``--fix`` credits a safe fix to ``--fix``, not to the codemod.
"""
from __future__ import annotations

from textwrap import dedent

import pytest
from clirun import poolguard, write
from samples import RESOLVED_AND_FLAGGED

# a try/except import for older releases, a tuple test, and a second condition on the flag
GUARDED = dedent("""\
    try:
        from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
    except ImportError:
        from sglang.srt.mem_cache.memory_pool import SWAKVPool
        BaseSWAKVPool = SWAKVPool

    _SWA_TYPES = (SWAKVPool, BaseSWAKVPool)


    class Fp8WindowAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            pool = model_runner.token_to_kv_pool
            self.fp8 = model_runner.kv_cache_dtype == "fp8_e4m3"
            self.fp8_swa = isinstance(pool, _SWA_TYPES) and self.fp8

        def forward_decode(self, q, k, v, layer, forward_batch):
            return "fp8-window" if self.fp8_swa else "full"
""")
PLAIN = GUARDED.replace(" and self.fp8\n", "\n")
LINT = ("lint", "--isolated", "--no-cache")


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path / "tree", {"guarded.py": GUARDED, "plain.py": PLAIN})


def test_a_declined_class_is_not_promised_and_says_why(tree):
    lint = poolguard(*LINT, "guarded.py", cwd=tree, expect=1)
    assert "can be enabled" not in lint.stderr and "can be tried with `--fix --unsafe-fixes`" \
        in lint.stderr
    for mode in ("--fix", "--diff"):
        done = poolguard(*LINT, mode, "--unsafe-fixes", "guarded.py", cwd=tree, expect=1)
        assert (tree / "guarded.py").read_text() == GUARDED  # the `and self.fp8` stays
        (why,) = [line for line in done.stderr.splitlines() if "not rewritten" in line]
        assert why.startswith("poolguard: guarded.py: Fp8WindowAttnBackend not rewritten by "
                              "--unsafe-fixes: self.fp8_swa also depends on")
        assert "[*]" not in done.stdout and "fixable" not in done.stderr


def test_a_rewrite_keeps_the_class_test_and_the_import_contract(tree):
    poolguard(*LINT, "--fix", "--unsafe-fixes", "plain.py", cwd=tree)
    fixed = (tree / "plain.py").read_text()
    compile(fixed, "plain.py", "exec")
    assert fixed.startswith(PLAIN.split("\n\n\nclass")[0])  # the try/except import untouched
    assert fixed.count("import") == PLAIN.count("import")  # no import added above it
    assert "if isinstance(pool, _SWA_TYPES):\n            return pool" in fixed
    assert "isinstance(pool, SWAKVPool)" not in fixed
    poolguard(*LINT, "plain.py", cwd=tree)  # and it lints clean


def test_unsafe_fixes_without_fix_credits_safe_fixes_to_fix(tmp_path):
    tree = write(tmp_path / "tree", {"own.py": RESOLVED_AND_FLAGGED})
    done = poolguard(*LINT, "--unsafe-fixes", "own.py", cwd=tree, expect=1)
    assert "(1 fixable with `poolguard lint --fix`; 1 may be fixed with `poolguard lint --fix " \
        "--unsafe-fixes`)" in done.stderr  # the safe one is credited to --fix alone
    lines = done.stdout.splitlines()
    both = [line for line in lines if "; --unsafe-fixes may instead: Resolve" in line]
    assert len(both) == 1 and not both[0].split("(fix: ")[1].startswith("Resolve the SWA")
    assert any("(fix: unsafe, may be declined: Resolve" in line for line in lines)


def test_an_allocator_test_reuses_the_pool_name_bound_under_try(tmp_path):
    # the flag tests the allocator: the default pool test stands in, under the file's own name
    source = PLAIN.replace("    _SWA_TYPES = (SWAKVPool, BaseSWAKVPool)\n", "").replace(
        "isinstance(pool, _SWA_TYPES)",
        "isinstance(model_runner.token_to_kv_pool_allocator, SWATokenToKVPoolAllocator)")
    source = "from sglang.srt.mem_cache.allocator import SWATokenToKVPoolAllocator\n" + source
    tree = write(tmp_path / "tree", {"alloc.py": source})
    poolguard(*LINT, "--fix", "--unsafe-fixes", "alloc.py", cwd=tree)
    fixed = (tree / "alloc.py").read_text()
    assert "isinstance(pool, SWAKVPool)" in fixed and fixed.count("import") == \
        source.count("import")  # no unconditional import above the try/except fallback
