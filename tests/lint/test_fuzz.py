"""The lint never crashes: generated Python, broken rule examples and installed packages."""
import sysconfig
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ungated import lint_source_ungated

from lint_rules.engine import (
    ALL_CODES,
    fix_source,
    has_backend_class_text,
    lint_source,
)
from lint_rules.options import Options
from lint_rules.rules import RULES

# Appended to generated code so the text filter and the ast gate let it through to libcst.
BACKEND = """

class FuzzAttnBackend(FlashInferAttnBackend):
    def __init__(self, model_runner):
        kv_pool = model_runner.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)
        self._swa_kv_pool = kv_pool if self.use_sliding_window_kv_pool else None
"""
EXAMPLES = [example.source for rule in RULES for example in (*rule.VALID, *rule.INVALID)]
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def check(source: str) -> None:
    found = lint_source(source, codes=ALL_CODES)
    for finding in found:
        assert finding.line >= 1 and finding.col >= 0 and finding.code in ALL_CODES
    # the ast gate only skips work: it never hides a finding (KVP900 aside: where libcst is
    # stricter than Python's parser, a file no rule can match is not parsed by libcst at all)
    ungated = lint_source_ungated(source, codes=ALL_CODES)
    assert [f for f in found if f.code != "KVP900"] == [f for f in ungated if f.code != "KVP900"]
    fixed, left = fix_source(source, codes=ALL_CODES)
    assert isinstance(fixed, str) and isinstance(left, list)


@SETTINGS
@given(hypothesmith.from_grammar())
def test_generated_modules_never_crash(source):
    check(source)
    check(source + BACKEND)


@SETTINGS
@given(st.sampled_from(EXAMPLES), st.data())
def test_mangled_rule_examples_never_crash(example, data):
    lines = example.splitlines(keepends=True)
    cut = data.draw(st.integers(0, len(lines) - 1))
    junk = data.draw(st.sampled_from(["", "(", ")", ":", "    ", "\\\n", "not ", "self."]))
    check("".join(lines[:cut]) + junk + "".join(lines[cut + 1:]))


def installed_sources():
    """Every module of libcst and flake8 and SGLang's attention backends (the rest of
    site-packages is linted once, for crashes only, by ``test_site_packages``)."""
    root = Path(sysconfig.get_paths()["purelib"])
    chosen = []
    for package in ("libcst", "flake8", "sglang/srt/layers/attention"):
        chosen += sorted((root / package).rglob("*.py"))
    return chosen


def test_installed_packages_never_crash(capsys):
    paths = installed_sources()
    reported = 0
    for path in paths:
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found = lint_source(source, codes=ALL_CODES)
        if not found and "sglang" in path.parts and has_backend_class_text(source, Options()):
            # a real backend the ast gate let go: the full libcst pass must agree
            assert lint_source_ungated(source, codes=ALL_CODES) == [], path
        reported += len(found)
    with capsys.disabled():
        print(f"\nlinted {len(paths)} installed modules, {reported} findings, no crash")
    assert len(paths) > 100
