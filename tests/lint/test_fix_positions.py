"""Fixes land exactly where the ``ast`` analysis points, on libcst, keeping everything else.

``ast`` columns count UTF-8 bytes, libcst's count characters; newlines may be CRLF or CR, the
indentation tabs, the file may start with a BOM; the dropped statement may share its line or
carry comments. Each case is fixed with the real engine (libcst underneath) and compared with
the exact text expected: only the fixed spots change, byte for byte.
"""
from __future__ import annotations

from textwrap import dedent, indent

import pytest

from lint_rules.engine import fix_source, lint_source

GATED = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

        def label(self):
            return "é✓" if self.use_sliding_window_kv_pool else "ü"
""")
GATED_FIXED = GATED.replace('"é✓" if self.use_sliding_window_kv_pool else',
                            '"é✓" if self._swa_kv_pool is not None else')


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_gate_after_non_ascii_text_with_any_newline(newline):
    source, expected = (text.replace("\n", newline) for text in (GATED, GATED_FIXED))
    fixed, left = fix_source(source)
    assert fixed == expected and left == []


def test_bom_and_tabs_are_kept():
    source = "\ufeff" + GATED.replace("    ", "\t")
    fixed, _ = fix_source(source)
    assert fixed == "\ufeff" + GATED_FIXED.replace("    ", "\t")


def test_a_gate_inside_an_operator_gets_parentheses():
    source = GATED.replace('return "é✓" if self.use_sliding_window_kv_pool else "ü"',
                           "return 1 + (not self.use_sliding_window_kv_pool) * 2")
    fixed, _ = fix_source(source)
    assert "return 1 + (self._swa_kv_pool is None) * 2" in fixed


FLAG = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            # why the flag exists
            self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # decided once
            self.page_size = 16

        def table(self, meta):
            return meta.swa_page_table if self.use_swa else meta.page_table
""")
PROPERTY = "\n" + indent(dedent('''\
        @property
        def use_swa(self):
            """Read-only view of the resolved pool: it cannot disagree with it."""
            return getattr(self, "_swa_kv_pool", None) is not None

        @use_swa.setter
        def use_swa(self, value):
            pass  # code that still assigns the flag is ignored: the pool decides
'''), "    ")


def test_comments_around_the_dropped_flag_stay():
    fixed, left = fix_source(FLAG)
    expected = FLAG.replace(
        "        self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)"
        "  # decided once\n", "        # decided once\n"
    ).replace("        self.page_size = 16\n", "        self.page_size = 16\n" + PROPERTY)
    assert fixed == expected
    assert [f.code for f in left] == []


@pytest.mark.parametrize("before, after", [
    ("        self.page_size = 16; self.use_swa = isinstance(model_runner.token_to_kv_pool, "
     "SWAKVPool)\n", "        self.page_size = 16\n"),
    ("        if model_runner.is_draft_worker: self.use_swa = isinstance("
     "model_runner.token_to_kv_pool, SWAKVPool)\n",
     "        if model_runner.is_draft_worker: pass\n"),
])
def test_a_flag_sharing_its_line(before, after):
    source = FLAG.replace(
        "        # why the flag exists\n        self.use_swa = isinstance(model_runner."
        "token_to_kv_pool, SWAKVPool)  # decided once\n        self.page_size = 16\n", before)
    assert [f.fixable for f in lint_source(source) if f.code == "KVP002"] == [True]
    fixed, _ = fix_source(source)
    assert fixed == source.replace(before, after + PROPERTY)


def test_untouched_code_is_byte_for_byte_even_when_odd():
    odd = "x = (  1 ,\\\n   2 )\x0c\n# trailing\t \n"
    source = odd + GATED + odd
    fixed, _ = fix_source(source)
    assert fixed == odd + GATED_FIXED + odd
