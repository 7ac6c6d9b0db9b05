"""The renderers on engine ``Finding`` lists: text, json, SARIF 2.1.0 essentials, GitHub syntax."""
from __future__ import annotations

import json
import re
from textwrap import dedent
from pathlib import Path

import pytest

from lint_rules.engine import ALL_CODES, Finding, lint_source
from lint_rules.rules import RULES, rule_docs
from lint_rules.output import (
    render_explain, render_github, render_json, render_sarif, render_text,
)

FINDINGS = [
    ("pkg/backend.py", Finding(12, 8, "KVP003", "gate on a flag; read the pool", True)),
    ("pkg/backend.py", Finding(3, 0, "KVP001", "caches pool state in __init__", False)),
    ("odd dir/x%y.py", Finding(1, 0, "KVP900", "cannot parse: line 1\r\n50%, a:b", False)),
]
GITHUB_LINE = re.compile(
    r"^::error file=(?P<file>[^,:]*),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"title=(?P<title>[^,:]*)::(?P<message>[^\r\n]*)$"
)


def test_text_is_flake8_shaped_with_one_based_columns_and_fix_mark():
    lines = render_text(FINDINGS).splitlines()
    assert lines[0] == "pkg/backend.py:12:9: KVP003 [*] gate on a flag; read the pool"
    assert lines[1] == "pkg/backend.py:3:1: KVP001 caches pool state in __init__"
    assert render_text([]) == ""


def test_json_rows_keep_every_field():
    rows = json.loads(render_json(FINDINGS))
    assert rows[0] == {"path": "pkg/backend.py", "line": 12, "column": 9, "code": "KVP003",
                       "message": "gate on a flag; read the pool", "fixable": True,
                       "fixes": []}
    assert [r["code"] for r in rows] == ["KVP003", "KVP001", "KVP900"]
    assert json.loads(render_json([])) == []


def test_github_annotations_follow_workflow_command_syntax_and_escaping():
    lines = render_github(FINDINGS).splitlines()
    assert len(lines) == 3  # an embedded CR/LF must not split an annotation
    parsed = [GITHUB_LINE.match(line) for line in lines]
    assert all(parsed), lines
    first = parsed[0].groupdict()
    assert first == {"file": "pkg/backend.py", "line": "12", "col": "9", "title": "KVP003",
                     "message": "KVP003 gate on a flag; read the pool"}
    odd = parsed[2].groupdict()
    assert odd["file"] == "odd dir/x%25y.py"
    # a Finding's message is one line already (Finding: CR LF as Python's escapes)
    assert odd["message"] == "KVP900 cannot parse: line 1\\r\\n50%25, a:b"


def check_sarif(log: dict) -> None:
    """The SARIF 2.1.0 essentials code-scanning upload relies on."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "poolguard" and driver["version"]
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    for rule in driver["rules"]:
        for key in ("shortDescription", "fullDescription", "help"):
            assert rule[key]["text"].strip()
    for result in run["results"]:
        assert result["level"] in {"error", "warning", "note", "none"}
        assert result["message"]["text"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        region = location["physicalLocation"]["region"]
        assert "\\" not in artifact["uri"] and not artifact["uri"].startswith("/")
        assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_sarif_has_rule_metadata_and_relative_locations(tmp_path):
    log = json.loads(render_sarif(FINDINGS, version="1.2.3", root=Path("pkg").resolve().parent))
    check_sarif(log)
    rule_ids = {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert set(ALL_CODES) <= rule_ids  # every public code is documented, KVP900 included
    first = log["runs"][0]["results"][0]
    assert first["ruleId"] == "KVP003"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "pkg/backend.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 12, "startColumn": 9},
    }
    odd = log["runs"][0]["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert odd["uri"] == "odd%20dir/x%25y.py"  # a URI, so percent-encoded


def test_sarif_path_outside_root_becomes_absolute_file_uri(tmp_path):
    outside = ("/elsewhere/x.py", Finding(1, 0, "KVP001", "m", False))
    log = json.loads(render_sarif([outside], root=tmp_path))
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert artifact["artifactLocation"] == {"uri": "file:///elsewhere/x.py"}


def test_rule_docs_cover_every_code_from_the_registry():
    docs = rule_docs()
    assert [d.code for d in docs] == sorted(ALL_CODES)
    for doc in docs:
        assert doc.doc.strip(), doc.code


@pytest.mark.parametrize("doc", rule_docs(), ids=lambda d: d.code)
def test_readme_explain_and_sarif_render_one_record(doc):
    """The README section, ``explain`` and SARIF all show the record's sections and examples."""
    from lint_rules.rules import render_rule

    readme = render_rule(doc.code).replace("`", "")
    explain = render_explain(doc)
    sarif = next(r for r in json.loads(render_sarif([]))["runs"][0]["tool"]["driver"]["rules"]
                 if r["id"] == doc.code)
    assert sarif["shortDescription"]["text"] == doc.summary
    assert sarif["fullDescription"]["text"] == doc.doc
    for section in (doc.what, doc.why, doc.fix_safety):
        assert section.replace("`", "") in readme
        assert section.splitlines()[0] in explain if section else True
    assert doc.what and doc.why and doc.what not in doc.why
    if doc.example is not None:
        assert doc.example.source.rstrip("\n") in readme
    if doc.use_instead is not None:
        assert doc.use_instead.rstrip("\n") in readme


@pytest.mark.parametrize("doc", rule_docs(), ids=lambda d: d.code)
def test_explain_text_shows_documentation_and_examples(doc):
    text = render_explain(doc)
    assert text.startswith(f"{doc.code} ({doc.name})")
    assert doc.summary in text
    for source, *_ in doc.valid:
        assert source.strip().splitlines()[0].strip() in text
    for source, fixed, *_ in doc.invalid:
        assert source.strip().splitlines()[0].strip() in text
        shown = [line.replace("  > ", "    ", 1) for line in text.splitlines()]
        for line in (fixed or source).strip("\n").splitlines():
            assert ("    " + line).rstrip() in shown  # indentation kept
    for example in doc.invalid:  # every flagged line is marked
        for number in example.lines:
            assert "  > " + example.source.splitlines()[number - 1] in text.splitlines()


@pytest.mark.parametrize("rule", [r for r in RULES if r.INVALID], ids=lambda r: r.CODE)
def test_every_message_says_what_is_wrong_and_names_its_fix_in_about_120_chars(rule):
    """Each rule's message, filled in on its own examples, ends with the remedy after ``:``
    or ``;`` (a verb the user can act on) and stays short enough to read in one line."""
    remedies = ("read the pool", "read self.", "test self.", "resolve self.", "make it a property",
                "fix that", "run poolguard", "hand it the pool", "swap it too in",
                "build it per swap",
                "size it by self.", "read it off self.", "test its pool")
    for example in rule.INVALID:
        for finding in lint_source(example.source, codes={rule.CODE}, options=example.options):
            assert len(finding.message) <= 130, finding.message
            remedy = finding.message.replace(";", ":").rsplit(":", 1)[-1]
            assert remedy.strip().startswith(remedies), finding.message


UNRESOLVED = dedent("""\
    class FlagOnlyAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
            self.is_hybrid_swa = model_runner.is_hybrid_swa
            self.kv_pool = model_runner.token_to_kv_pool

        def forward_decode(self, q, k, v, layer, forward_batch):
            return q if self.use_swa or self.is_hybrid_swa else k
""")
RESOLVED = dedent("""\
    class ResolvedAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
            self.mirror = self._swa_kv_pool is not None

        @staticmethod
        def _resolve_swa_kv_pool(model_runner):
            pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
            return pool if isinstance(pool, SWAKVPool) else None

        def forward_decode(self, q, k, v, layer, forward_batch):
            return q if self.use_swa else k
""")


def test_remedies_say_where_the_pool_comes_from_and_where_to_read_it():
    """rel5 §5.1/5.4/5.7: a class without ``self._swa_kv_pool`` is told to resolve it first (a
    remedy naming an attribute the class lacks is no remedy); a cached pool is told to read
    ``self.token_to_kv_pool`` per forward (not "there"); KVP004 names who re-resolves."""
    found = {(f.line, f.code): f.message for f in lint_source(UNRESOLVED, codes=ALL_CODES)}
    resolve = "resolve self._swa_kv_pool (#27491), test it"
    assert found[(4, "KVP002")].endswith(resolve), found
    assert found[(5, "KVP002")].endswith(resolve), found
    assert found[(9, "KVP003")].endswith(resolve), found
    assert found[(6, "KVP001")].endswith("read self.token_to_kv_pool per forward"), found
    assert all(len(message) <= 130 for message in found.values()), found
    found = {(f.line, f.code): f.message for f in lint_source(RESOLVED, codes=ALL_CODES)}
    assert found[(4, "KVP002")].endswith("test self._swa_kv_pool is not None"), found
    assert found[(13, "KVP003")].endswith("test self._swa_kv_pool is not None"), found
    assert "left stale if a subclass re-resolves it" in found[(5, "KVP004")], found


JOINED = dedent("""\
    class JoinedFlagAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool) and self.window > 0
            self.any_swa = isinstance(model_runner.token_to_kv_pool, (SWAKVPool, BaseSWAKVPool))

        @staticmethod
        def _resolve_swa_kv_pool(model_runner):
            pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
            return pool if isinstance(pool, SWAKVPool) else None

        def forward_decode(self, q, k, v, layer, forward_batch):
            return q if self.swa else k

        def forward_extend(self, q, k, v, layer, forward_batch):
            return q if self.any_swa else k

        def _swa_on(self):
            return self.swa

        def init_forward_metadata(self, forward_batch):
            forward_batch.rows = 1 if self._swa_on() else 0
""")


def test_remedies_keep_a_flags_other_conditions_and_name_the_helper():
    """fp6: a flag joining the pool test with another condition (a window size) is told to test
    the pool in place of its type test only (the bare pool test would drop the window); a flag
    of type tests alone keeps the plain remedy; a helper handing a flag back is named with it."""
    found = {(f.line, f.code): f.message for f in lint_source(JOINED, codes=ALL_CODES)}
    kept = "test self._swa_kv_pool is not None in place of its type test"
    assert found[(4, "KVP002")].endswith(kept), found
    assert found[(13, "KVP003")].endswith(kept), found
    assert found[(5, "KVP002")].endswith("test self._swa_kv_pool is not None"), found
    assert found[(16, "KVP003")].endswith("test self._swa_kv_pool is not None"), found
    assert found[(22, "KVP003")].startswith("self._swa_on() returns SWA flag self.swa,"), found
    assert found[(22, "KVP003")].endswith(kept), found  # (the flag's own test is the fix)
    assert all(len(message) <= 130 for message in found.values()), found


def test_a_lone_surrogate_in_a_quoted_name_is_escaped_in_the_message():
    """``setattr(self, "pool\\ud800", ...)`` names an attribute no UTF-8 stream can write:
    the message shows Python's escape of it, so every format (and flake8) can print it."""
    source = dedent(
        """\
        class SurrogateBackend(AttentionBackend):
            def __init__(self, model_runner):
                setattr(self, 'pool\\ud800', model_runner.token_to_kv_pool)
        """
    )
    (finding,) = lint_source(source)
    assert "pool\\ud800" in finding.message
    finding.message.encode("utf-8")  # strict: no surrogate left
