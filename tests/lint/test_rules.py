"""Every rule's own VALID / INVALID examples, generated into cases (no registration step)."""
import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from ungated import lint_source_ungated

import lint_rules.rules as rules_pkg
from lint_rules.engine import (
    ALL_CODES,
    DEFAULT_CODES,
    FIXABLE,
    Finding,
    fix_source,
    lint_source,
    may_match,
)
from lint_rules.options import Options
from lint_rules.rules import RULES, render_markdown, rule_doc
from lint_rules.rules._vocab import ACTIVE_POOL, SWA_WORDS


def pairs(findings):
    return [(finding.line, finding.code) for finding in findings]


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _cases(kind):
    for rule in RULES:
        for index, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.CODE}-{kind.lower()}-{index}")


def _codes(rule):
    return DEFAULT_CODES | {rule.CODE}


def test_codes_are_unique_and_match_the_public_list():
    codes = [rule.CODE for rule in RULES]
    assert len(codes) == len(set(codes))
    assert tuple(codes) == ALL_CODES
    assert DEFAULT_CODES == {rule.CODE for rule in RULES if rule.DEFAULT}


def test_every_rule_module_is_registered():
    found = pkgutil.iter_modules(rules_pkg.__path__)
    modules = [m.name for m in found if not m.name.startswith("_")]
    registered = {rule.__module__.rsplit(".", 1)[1] for rule in RULES}
    assert modules and set(modules) == registered
    for name in modules:  # one rule per module, named after its code
        module = importlib.import_module(f"lint_rules.rules.{name}")
        own = [r for r in RULES if r.__module__ == module.__name__]
        assert len(own) == 1 and name.startswith(own[0].CODE.lower())


def test_every_rule_documents_itself():
    for rule in RULES:
        assert rule.__doc__ and rule.NAME and rule.MESSAGE
        assert rule.INVALID, f"{rule.CODE} has no INVALID example"
        assert "FROZEN_KV" in rule.MESSAGE or rule.CODE == "KVP900"


@pytest.mark.parametrize("rule, example", list(_cases("VALID")))
def test_valid_example_is_clean(rule, example):
    assert lint_source(example.source, codes=_codes(rule), options=example.options) == []


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_invalid_example_reports_exactly_its_findings(rule, example):
    found = lint_source(example.source, codes=_codes(rule), options=example.options)
    assert tuple(pairs(found)) == example.expected
    assert rule.CODE in {code for _, code in example.expected}
    for finding in found:
        assert "\n" not in finding.message and not finding.message.startswith("KVP")
    # an example without expected fix output must not offer one, and vice versa
    assert any(f.fixable for f in found) == (example.fixed is not None)


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_invalid_example_fix(rule, example):
    codes, options = _codes(rule), example.options
    fixed, left = fix_source(example.source, codes=codes, options=options)
    if example.fixed is None:
        assert fixed == example.source
        return
    assert fixed == example.fixed
    cst.parse_module(fixed)  # re-parses
    assert left == lint_source(fixed, codes=codes, options=options, honor_noqa=True)
    assert not [f for f in left if f.fixable]  # nothing fixable is left behind
    assert fix_source(fixed, codes=codes, options=options) == (fixed, left)  # idempotent


def test_flag_fix_leaves_pass_and_adds_a_property():
    rule = next(r for r in RULES if r.CODE == "KVP002")
    fixed = rule.INVALID[0].fixed
    assert "            pass\n" in fixed and "self.use_swa = isinstance" not in fixed
    assert "    @property\n    def use_swa(self):" in fixed and "@use_swa.setter" in fixed


GATED = src(
    """
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

        def table(self, meta):
            if self.use_sliding_window_kv_pool:  # noqa: KVP003
                return meta.swa_page_table
            if self.use_sliding_window_kv_pool:  # NOQA:kvp0
                return meta.swa_page_table
            if self.use_sliding_window_kv_pool:  # noqa
                return meta.swa_page_table
            if self.use_sliding_window_kv_pool:  # noqa: E501,KVP001
                return meta.swa_page_table
            return meta.page_table
    """
)


def test_noqa_follows_flake8_semantics():
    every = [(7, "KVP003"), (9, "KVP003"), (11, "KVP003"), (13, "KVP003")]
    assert pairs(lint_source(GATED)) == every
    # flake8 compares listed codes case-sensitively: `# NOQA:kvp0` suppresses nothing
    assert pairs(lint_source(GATED, honor_noqa=True)) == [(9, "KVP003"), (13, "KVP003")]


CACHED = src(
    """
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool

        @functools.lru_cache(maxsize=None)
        def window_rows(self, layer_id):
            pool = self.token_to_kv_pool
            if not isinstance(pool, SWAKVPool):
                return None
            return pool.full_to_swa_index_mapping

        @functools.cached_property
        def window_pool(self):
            return getattr(self.token_to_kv_pool, "swa_kv_pool", None)
    """
)


def test_a_method_cache_is_reported_once_on_its_def_line_where_noqa_silences_it():
    # the decorator makes the cache: the store is the def, whichever return hands state out
    assert pairs(lint_source(CACHED, codes={"KVP001"})) == [(6, "KVP001"), (13, "KVP001")]
    quiet = CACHED.replace("def window_rows(self, layer_id):",
                           "def window_rows(self, layer_id):  # noqa: KVP001")
    assert pairs(lint_source(quiet, codes={"KVP001"}, honor_noqa=True)) == [(13, "KVP001")]
    returned = CACHED.replace("return pool.full_to_swa_index_mapping",
                              "return pool.full_to_swa_index_mapping  # noqa: KVP001")
    assert len(lint_source(returned, codes={"KVP001"}, honor_noqa=True)) == 2


def test_fix_never_touches_a_line_with_a_kvp_noqa():
    # a line whose noqa names any KVP code is left alone, even for another KVP code
    fixed, left = fix_source(GATED)
    assert fixed == GATED.replace("if self.use_sliding_window_kv_pool:  # NOQA:kvp0",
                                  "if self._swa_kv_pool is not None:  # NOQA:kvp0")
    assert pairs(left) == [(13, "KVP003")] and not left[0].fixable
    other = GATED.replace("E501,KVP001", "E501")
    fixed, left = fix_source(other)
    assert "if self._swa_kv_pool is not None:  # noqa: E501" in fixed and left == []
    assert fixed.count("self.use_sliding_window_kv_pool") == 3  # the definition and 2 gates


def test_flag_fix_is_atomic_when_its_line_is_suppressed():
    source = src(
        """
        class DemoAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                self.has_swa = isinstance(self._swa_kv_pool, SWAKVPool)  # noqa: KVP002

            def b(self):
                return 1 if self.has_swa else 0
        """
    )
    fixed, left = fix_source(source)
    assert fixed == source  # the one fix touches a protected line: nothing is rewritten
    assert pairs(left) == [(7, "KVP003")] and not left[0].fixable


def test_not_and_parentheses_keep_precedence():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self._swa_kv_pool = None
                self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

            def f(self, x):
                if not (self.use_sliding_window_kv_pool) or x:
                    return x if(self.use_sliding_window_kv_pool)else None
                while not self.use_sliding_window_kv_pool and x:
                    x = not not self.use_sliding_window_kv_pool
                assert self.use_sliding_window_kv_pool, "needs SWA"
        """
    )
    fixed, left = fix_source(source)
    assert left == []
    assert "if self._swa_kv_pool is None or x:" in fixed
    assert "return x if(self._swa_kv_pool is not None)else None" in fixed
    assert "while self._swa_kv_pool is None and x:" in fixed
    assert "x = not self._swa_kv_pool is None" in fixed
    assert 'assert self._swa_kv_pool is not None, "needs SWA"' in fixed


def test_kvp003_unfixable_without_the_pool_attribute_and_in_init_before_it():
    source = src(
        """
        class B(TRTLLMHAAttnBackend):
            def __init__(self, model_runner):
                super().__init__(model_runner)
                self.table = make() if self.use_sliding_window_kv_pool else None
        """
    )
    found = lint_source(source)
    assert pairs(found) == [(4, "KVP003")] and not found[0].fixable
    assert fix_source(source)[0] == source


def test_positions_are_one_based_lines_and_zero_based_character_columns():
    source = src(
        """
        class B(FlashInferAttnBackend):  # ünïcödé
            def __init__(self, model_runner):
                self._swa_kv_pool = None
                s = "ä"; t = 1 if self.use_sliding_window_kv_pool else 0
        """
    )
    [finding] = lint_source(source)
    assert (finding.line, finding.col) == (4, source.splitlines()[3].index("self.use"))


def test_kvp004_is_opt_in_and_names_the_configured_pool_attribute():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self.swa_pool = resolve(model_runner)
                self.on = self.swa_pool is None

            def f(self):
                return 1 if self.on else 2
        """
    )
    assert lint_source(source) == []
    options = Options(pool_attr="swa_pool")
    [finding] = lint_source(source, codes=ALL_CODES, options=options)
    assert finding.code == "KVP004" and "self.swa_pool" in finding.message
    fixed, left = fix_source(source, codes=ALL_CODES, options=options)
    assert 'return getattr(self, "swa_pool", None) is None' in fixed and left == []
    assert "return 1 if self.on else 2" in fixed  # readers keep the name: a property now


def test_kvp900_for_unparsable_source_never_raises():
    broken = "class ABackend(AttnBackend):\n    def f(self:\n        swa = 1\n"
    [finding] = lint_source(broken)
    assert finding == Finding(finding.line, finding.col, "KVP900", finding.message, False)
    assert finding.line in (2, 3) and finding.message.startswith("cannot parse: ")
    assert "\n" not in finding.message
    assert fix_source(broken)[1] == [finding]
    assert lint_source(broken, codes={"KVP003"}) == []


def test_unparsable_file_without_a_backend_class_is_left_to_flake8():
    # nothing a rule could report lives there; E999 is flake8's (the pre-filter's promise)
    assert lint_source("class A(:\n    swa = 1\n") == []


def test_prefilter_skips_sources_that_cannot_match():
    assert lint_source("def f(:\n") == []  # no class, no pool: never parsed
    assert lint_source("class A:\n    x = 1\n") == []


def test_options_parse_list():
    assert Options.parse_list("a, b,,c ") == ("a", "b", "c")
    assert Options.parse_list([" a", "b "]) == ("a", "b")
    assert Options.parse_list(None) == ()


def test_rule_docs_are_generated():
    """README's compact table and docs/rules.md are the registry's rendering, byte for byte."""
    from pathlib import Path

    from lint_rules.rules import render_readme

    root = Path(__file__).resolve().parents[2]
    regenerate = ("regenerate: python -m lint_rules.rules --readme README.md"
                  " --reference docs/rules.md")
    readme = (root / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- BEGIN rules -->\n", 1)[1].split("<!-- END rules -->", 1)[0]
    assert block == render_readme(), regenerate
    assert (root / "docs" / "rules.md").read_text(encoding="utf-8") == render_markdown(), regenerate
    for rule in RULES:
        assert f"| {rule.CODE} |" in block and f"### {rule.CODE} " in render_markdown()


def kvp001_lines(source: str):
    return [f.line for f in lint_source(source, codes={"KVP001"})]


def test_kvp001_follows_aliases_branches_and_or_and_walrus():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner, fast):
                if fast:
                    pool = model_runner.token_to_kv_pool
                else:
                    pool = None
                self.a = pool or self.fallback
                self.b = (p := self.model_runner.token_to_kv_pool) and p.full_to_swa_index_mapping
                self.c = 4 if isinstance(pool, SWAKVPool) else 8
                pool = None
                self.d = pool
        """
    )
    assert kvp001_lines(source) == [7, 8]  # (self.c: a value the type test picked, KVP002)


def test_kvp001_ignores_geometry_metadata_asserts_and_call_arguments():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self.token_to_kv_pool = model_runner.token_to_kv_pool
                self.head_dim = model_runner.token_to_kv_pool.head_dim
                self.layout = self.token_to_kv_pool.get_swa_key_layout().is_interleaved
                assert isinstance(self.token_to_kv_pool, SWAKVPool)
                self.indexer = make_indexer(token_to_kv_pool=self.token_to_kv_pool)
                self.first = self.token_to_kv_pool.layers_mapping[0].device
        """
    )
    assert kvp001_lines(source) == []


def test_kvp001_init_only_helpers_and_resolvers():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self._setup(model_runner)
                self._refresh(model_runner)
                self.pool = self._resolve_pool(model_runner)
                self.raw = self._active(model_runner)

            def _setup(self, model_runner):
                self.mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping

            def _refresh(self, model_runner):  # also called per forward: not init-only
                self.mapping2 = model_runner.token_to_kv_pool.full_to_swa_index_mapping

            def forward_extend(self, forward_batch):
                self._refresh(forward_batch)

            def _resolve_pool(self, model_runner):
                pool = model_runner.token_to_kv_pool
                fallback = model_runner.token_to_kv_pool_allocator.get_kvcache()
                return pool if isinstance(pool, SWAKVPool) else fallback

            def _active(self, model_runner):
                return model_runner.token_to_kv_pool
        """
    )
    assert kvp001_lines(source) == [6, 9]


def test_scope_is_backend_classes_by_base_name_or_local_inheritance():
    source = src(
        """
        class Base(mod.sub.TritonAttnBackend):
            pass


        class Child(Base):
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool


        class PoolStats(Base2):
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool
        """
    )
    assert kvp001_lines(source) == [7]


def test_scope_is_also_what_a_class_is_its_own_name_or_a_backend_method():
    source = src(
        """
        class EagleMultiStepDraftBackend:
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool


        class DllmFlashAttention(_Helper):
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool

            def init_forward_metadata(self, forward_batch):
                pass


        class Child(DllmFlashAttention):
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool


        class PoolStats(_Helper):
            def __init__(self, model_runner):
                self.swa_pool = model_runner.token_to_kv_pool

            def report(self, forward_batch):
                pass
        """
    )
    assert may_match(source)
    assert kvp001_lines(source) == [3, 8, 16]


def test_kvp001_runner_under_any_name_and_the_allocator_pool_outside_a_resolver():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, runner=None):
                self.token_to_kv_pool = getattr(runner, "token_to_kv_pool", None)
                self.kv_pool = runner.token_to_kv_pool
                allocator = runner.token_to_kv_pool_allocator
                self._swa_kv_pool = allocator.get_kvcache() if self.swa else None
                self._ok = self._resolve(runner)

            @staticmethod
            def _resolve(runner):
                active = runner.token_to_kv_pool
                pool = runner.token_to_kv_pool_allocator.get_kvcache()
                return active if isinstance(active, SWAKVPool) else pool
        """
    )
    assert kvp001_lines(source) == [4, 6]


def test_kvp003_follows_a_local_alias_of_the_flag_into_a_condition():
    source = src(
        """
        class B(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self._swa_kv_pool = resolve(model_runner)
                self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

            def f(self, meta):
                has_swa = self.use_sliding_window_kv_pool
                logged = self.use_sliding_window_kv_pool
                print(logged)
                return meta.swa if not has_swa else meta.full
        """
    )
    assert pairs(lint_source(source)) == [(10, "KVP003")]  # at the decision; the fix at the read
    fixed, left = fix_source(source)
    assert "has_swa = self._swa_kv_pool is not None" in fixed and left == []
    assert "logged = self.use_sliding_window_kv_pool" in fixed


def test_too_deep_for_cpython_is_kvp900_and_never_reaches_libcst():
    # libcst's native parser can overflow the C stack (a process crash) on input this deep;
    # CPython's parser refuses it first, so the engine reports it without calling libcst
    deep = "class A(XBackend):\n    pool = model_runner.token_to_kv_pool\n    y = "
    source = deep + "1+" * 20000 + "1\n"
    [finding] = lint_source(source)
    assert finding.code == "KVP900"
    assert finding.message.startswith("cannot parse: nesting too deep; ")
    assert fix_source(source) == (source, [finding])


# --- issue 10: the pre-filter only skips what the parser would also rule out ---------------------

HIDDEN_BASES = {
    "paren in a comment": "class D(\n    SpecMixin,  # mixin first (MRO matters)\n"
                          "    TRTLLMHAAttnBackend,\n):\n",
    "call in the bases": "class D(make_mixin(), TRTLLMHAAttnBackend):\n",
    "form feed": "\x0cclass D(TRTLLMHAAttnBackend):\n",
    "keyword argument": "class D(TRTLLMHAAttnBackend, metaclass=Meta(x=(1))):\n",
    "colon and paren in a string": "class D(mixin(\"):)\"), TRTLLMHAAttnBackend):\n",
    "lambda in the bases": "class D(mixin(lambda: 1), TRTLLMHAAttnBackend):\n",
    "f-string in the bases": "class D(mixin(f\"{x!r}:\"), TRTLLMHAAttnBackend):\n",
    "byte order mark": "\ufeffclass D(TRTLLMHAAttnBackend):\n",
    "line continuation": "class D(\\\n    TRTLLMHAAttnBackend):\n",
}
GATE_BODY = (
    "    def f(self):\n"
    "        return 1 if self.use_sliding_window_kv_pool else 0\n"
)


@pytest.mark.parametrize("header", list(HIDDEN_BASES.values()), ids=list(HIDDEN_BASES))
def test_prefilter_has_no_blind_spot_in_the_class_header(header):
    source = header + GATE_BODY
    assert may_match(source)
    assert [f.code for f in lint_source(source)] == ["KVP003"]


def test_prefilter_skips_files_whose_classes_have_no_backend_base():
    body = "    x: AttentionBackend = None  # Backend in the body, not the header\n"
    source = "from m import FlashInferAttnBackend\nclass D(Base):\n" + body + GATE_BODY
    assert not may_match(source)
    assert lint_source_ungated(source) == []  # the analysis agrees: nothing to report


def test_cr_only_newlines_are_lines_too():
    source = (HIDDEN_BASES["paren in a comment"] + GATE_BODY).replace("\n", "\r")
    [finding] = lint_source(source)
    assert (finding.line, finding.code) == (6, "KVP003")


def _without(source: str, words) -> str:
    for word in words:
        source = re.sub(re.escape(word), "x" * len(word), source, flags=re.I)
    return source


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_prefilter_is_sound_on_every_example_and_its_stripped_variants(rule, example):
    """Whatever the filter skips, the full analysis finds nothing in either (one vocabulary)."""
    words = (*SWA_WORDS, ACTIVE_POOL)
    variants = [example.source] + [_without(example.source, [word]) for word in words]
    variants.append(_without(example.source, [*SWA_WORDS, ACTIVE_POOL]))
    for source in variants:  # (KVP900 is defined on the files the filter lets through)
        if not may_match(source, example.options):
            found = lint_source_ungated(source, codes=ALL_CODES)
            assert [f for f in found if f.code != "KVP900"] == [], source
    assert may_match(example.source, example.options)


def test_prefilter_follows_configured_names():
    source = "class D(PoolUser):\n    def f(self):\n        return 1 if self.on else 0\n"
    options = Options(backend_bases=("PoolUser",), swa_flags=("on",))
    assert not may_match(source) and may_match(source, options)
    assert pairs(lint_source(source, options=options)) == [(3, "KVP003")]


# --- issue 10 mutation (b): KVP003 is scoped to attention backends --------------------------------


def test_kvp003_flags_gates_in_backend_classes_only():
    source = src(
        """
        class Helper:
            def f(self):
                return 1 if self.use_sliding_window_kv_pool else 0


        class DemoAttnBackend(FlashInferAttnBackend):
            def f(self):
                return 1 if self.use_sliding_window_kv_pool else 0


        class Stats(object):
            def __init__(self, model_runner):
                self.is_hybrid_swa = model_runner.is_hybrid_swa
                self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

            def g(self):
                assert self.is_hybrid_swa or self.use_swa
        """
    )
    assert pairs(lint_source(source, codes=ALL_CODES)) == [(8, "KVP003")]


# --- issue 8: fixes never change behaviour and keep other modules working ----------------------


def test_gate_on_a_mirror_with_more_than_the_pool_test_gets_no_fix():
    source = src(
        """
        class AiterAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                self.use_sliding_window_kv_pool = (
                    self.swa_kv_pool is not None and self.swa_kv_pool.swa_layer_nums > 0
                )

            def f(self):
                if self.use_sliding_window_kv_pool:
                    return 1
        """
    )
    options = Options(pool_attr="swa_kv_pool")
    [finding] = lint_source(source, options=options)
    assert (finding.line, finding.code, finding.fixable) == (9, "KVP003", False)
    assert fix_source(source, options=options)[0] == source


def test_gate_fix_needs_the_pool_resolved_once_before_the_mirror():
    source = src(
        """
        class DemoAttnBackend(FlashInferAttnBackend):
            def __init__(self, model_runner):
                self._swa_kv_pool = None
                self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

            def resolve(self, model_runner):  # re-resolved later: the mirror may be stale
                self._swa_kv_pool = model_runner.token_to_kv_pool_allocator.get_kvcache()

            def f(self):
                return 1 if self.use_sliding_window_kv_pool else 0
        """
    )
    [finding] = lint_source(source)
    assert (finding.line, finding.code, finding.fixable) == (10, "KVP003", False)


def _run_fixed_module(source: str) -> dict:
    """Execute fixed backend code next to a base class and a reader from 'another module'."""
    namespace = {
        "SWAKVPool": type("SWAKVPool", (), {}),
        "SWATokenToKVPoolAllocator": type("SWATokenToKVPoolAllocator", (), {}),
    }

    class AttentionBackend:  # another module's base: it assigns and reads the flag itself
        def __init__(self, *args):
            self.use_swa = "set by the base class"

    namespace["AttentionBackend"] = AttentionBackend
    exec(compile(source, "<fixed>", "exec"), namespace)
    return namespace


def test_flag_fix_keeps_readers_and_writers_in_other_modules_working():
    rule = next(r for r in RULES if r.CODE == "KVP002")
    namespace = _run_fixed_module(rule.INVALID[0].fixed)
    backend_class = namespace["DemoAttnBackend"]
    pool = namespace["SWAKVPool"]()
    backend_class._resolve_swa_kv_pool = lambda self, runner: runner.pool
    for active in (pool, None):
        runner = type("Runner", (), {"pool": active, "is_draft_worker": True})()
        backend = backend_class(runner)
        AttentionBackend = namespace["AttentionBackend"]
        AttentionBackend.__init__(backend)  # a write from elsewhere is ignored, never raises
        assert backend.use_swa is (active is not None)  # a read from elsewhere still works
        meta = type("Meta", (), {"swa_page_table": "swa", "page_table": "full"})()
        assert backend.table(meta) == ("swa" if active is not None else "full")


# --- the registry is derived, the rules share facts and never each other --------------------------


def test_code_sets_are_derived_from_the_rules():
    assert FIXABLE == {r.CODE for r in RULES if any(e.fixed for e in r.INVALID)}
    assert FIXABLE == {"KVP002", "KVP003", "KVP004"}.intersection(FIXABLE)
    assert DEFAULT_CODES == frozenset(r.CODE for r in RULES if r.DEFAULT)
    for rule in RULES:  # Fixit's convention: fixable exactly when an example shows the fix
        assert rule.fixable() == (rule.CODE in FIXABLE)


def test_rules_never_import_each_other():
    for rule in RULES:
        tree = ast.parse(Path(inspect.getfile(rule)).read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        rule_modules = {m for m in imported if m and m.startswith("lint_rules.rules.kvp")}
        assert not rule_modules, f"{rule.CODE} imports {rule_modules}"


def test_rule_docs_have_the_four_sections_and_short_messages():
    for rule in RULES:
        doc = rule_doc(rule)
        assert doc.what and doc.why, rule.CODE
        rendered = render_markdown(rule.CODE)
        assert "**Example**" in rendered
        for example in rule.INVALID:
            for finding in lint_source(example.source, codes=ALL_CODES, options=example.options):
                assert len(finding.message) <= 130, finding.message
