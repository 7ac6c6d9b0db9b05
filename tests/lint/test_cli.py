"""``poolguard`` as users run it: a subprocess on scratch trees, checked on its output and exit.

Exit status contract: 0 clean, 1 findings (or a diff) remain, 2 usage/config/I/O error.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from textwrap import dedent

import pytest
from samples import GATED

from lint_rules.engine import DEFAULT_CODES, lint_source

GATED_FIXED = GATED.replace("if self.use_sliding_window_kv_pool",
                            "if self._swa_kv_pool is not None")
STALE = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.swa_pool = model_runner.token_to_kv_pool
""")
MIRROR = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.has_swa = self._swa_kv_pool is not None
""")
CLEAN = dedent("""\
    class DemoBackend(FlashInferAttnBackend):
        def forward_decode(self, q, k, v, layer, forward_batch):
            pool = forward_batch.token_to_kv_pool
            return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
""")
TEXT_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>KVP\d{3})"
                       r"(?P<fix> \[\*\])? (?P<message>.+)$")
GITHUB_LINE = re.compile(r"^::error file=[^,:]+,line=\d+,col=\d+,title=KVP\d{3}::KVP\d{3} .+$")


def _load_sibling(name: str):
    # tests/ is not a package; load a sibling test module by path for its checker
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def poolguard(*args, cwd: Path, cache_dir: Path | None = None, expect: int | None = None):
    """Run ``python -m lint_rules.cli`` in ``cwd``; assert the exit status when given."""
    env = dict(os.environ)
    env["POOLGUARD_CACHE_DIR"] = str(cache_dir or cwd.parent / f"{cwd.name}.cache")
    env.pop("PYTHONWARNINGS", None)
    command = [sys.executable, "-m", "lint_rules.cli", *args]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    if expect is not None:
        assert done.returncode == expect, (done.returncode, done.stdout, done.stderr)
    return done


def write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def codes_of(stdout: str) -> list:
    return [(row["path"], row["line"], row["code"]) for row in json.loads(stdout)]


# ---------------------------------------------------------------- formats and exit codes

def test_clean_tree_exits_0_and_says_so_on_stderr_only(tmp_path):
    write(tmp_path, {"pkg/clean.py": CLEAN, "pkg/other.py": "x = 1\n"})
    done = poolguard("lint", "--isolated", cwd=tmp_path, expect=0)
    assert done.stdout == "" and done.stderr == "poolguard: All checks passed!\n"
    for fmt in ("json", "sarif", "github"):  # machine formats: nothing but the format
        machine = poolguard("lint", "--isolated", "--format", fmt, cwd=tmp_path, expect=0)
        assert machine.stderr == ""


def test_the_summary_counts_what_the_baseline_hid(tmp_path):
    write(tmp_path, {"stale.py": STALE})
    poolguard("lint", "--isolated", "--write-baseline", "base.json", "stale.py", cwd=tmp_path,
              expect=0)
    known = poolguard("lint", "--isolated", "--baseline", "base.json", cwd=tmp_path, expect=0)
    assert known.stderr == "poolguard: All checks passed! (1 finding hidden by the baseline)\n"
    write(tmp_path, {"gated.py": GATED})
    new = poolguard("lint", "--isolated", "--baseline", "base.json", cwd=tmp_path, expect=1)
    assert new.stderr.startswith("poolguard: Found 1 finding (1 fixable with `poolguard lint "
                                 "--fix`; 1 hidden by the baseline).")


def test_text_output_matches_the_engine_and_exits_1(tmp_path):
    write(tmp_path, {"pkg/gated.py": GATED, "pkg/stale.py": STALE, "pkg/clean.py": CLEAN})
    done = poolguard("lint", "--isolated", cwd=tmp_path, expect=1)
    rows = [TEXT_LINE.match(line) for line in done.stdout.splitlines()]
    assert rows and all(rows), done.stdout
    expected = [
        (f"pkg/{name}.py", f.line, f.col + 1, f.code, f.fixable)
        for name, source in (("gated", GATED), ("stale", STALE))
        for f in lint_source(source, codes=DEFAULT_CODES, honor_noqa=True)
    ]
    got = [(m["path"], int(m["line"]), int(m["col"]), m["code"], bool(m["fix"])) for m in rows]
    assert got == expected
    assert ("pkg/gated.py", 6, 12, "KVP003", True) in got
    assert any(code == "KVP001" and not fix for _, _, _, code, fix in got)
    assert "finding" in done.stderr  # the summary goes to stderr, stdout stays parseable


def test_json_output(tmp_path):
    write(tmp_path, {"gated.py": GATED})
    done = poolguard("lint", "--isolated", "--format", "json", "gated.py", cwd=tmp_path, expect=1)
    rows = json.loads(done.stdout)
    assert rows[0]["path"] == "gated.py" and rows[0]["code"] == "KVP003"
    assert rows[0]["line"] == 6 and rows[0]["column"] == 12 and rows[0]["fixable"] is True
    assert "use_sliding_window_kv_pool" in rows[0]["message"]
    clean = poolguard("lint", "--isolated", "--format", "json", cwd=write(tmp_path / "c", {
        "a.py": CLEAN}), expect=0)
    assert json.loads(clean.stdout) == []


def test_sarif_output_is_valid_sarif(tmp_path):
    write(tmp_path, {"sub/gated.py": GATED, "stale.py": STALE})
    done = poolguard("lint", "--isolated", "--format", "sarif", cwd=tmp_path, expect=1)
    log = json.loads(done.stdout)
    _load_sibling("test_output").check_sarif(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]}
    assert uris == {"sub/gated.py", "stale.py"}


def test_github_output_is_annotation_lines(tmp_path):
    write(tmp_path, {"gated.py": GATED, "stale.py": STALE})
    done = poolguard("lint", "--isolated", "--format", "github", cwd=tmp_path, expect=1)
    lines = done.stdout.splitlines()
    assert lines and all(GITHUB_LINE.match(line) for line in lines), lines
    assert "::error file=gated.py,line=6,col=12,title=KVP003::KVP003 " in done.stdout


def test_syntax_error_is_kvp900_not_a_crash(tmp_path):
    broken = "class ABackend(AttnBackend):\n    def __init__(self:\n        swa = 1\n"
    write(tmp_path, {"broken.py": broken, "gated.py": GATED})
    done = poolguard("lint", "--isolated", "--format", "json", cwd=tmp_path, expect=1)
    found = codes_of(done.stdout)
    assert ("broken.py", found[0][1], "KVP900") == found[0]
    assert ("gated.py", 6, "KVP003") in found  # the other file is still checked


def test_undecodable_file_is_kvp900(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# swa\nx = '\xff'\n")  # not UTF-8, no cookie
    done = poolguard("lint", "--isolated", "--format", "json", cwd=tmp_path, expect=1)
    assert codes_of(done.stdout) == [("latin.py", 1, "KVP900")]
    poolguard("lint", "--isolated", "--ignore", "KVP900", cwd=tmp_path, expect=0)


def test_symlinked_directories_are_not_followed(tmp_path):
    write(tmp_path, {"pkg/gated.py": GATED})
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path)
    (tmp_path / "pkg" / "alias.py").symlink_to(tmp_path / "pkg" / "gated.py")
    done = poolguard("lint", "--isolated", "--format", "json", cwd=tmp_path, expect=1)
    # one file is one file: the link and its target are reported once, by the target's name
    assert codes_of(done.stdout) == [("pkg/gated.py", 6, "KVP003")]
    poolguard("lint", "--isolated", "--fix", "pkg/alias.py", cwd=tmp_path, expect=0)
    assert (tmp_path / "pkg" / "alias.py").is_symlink()  # fixed through the link
    assert (tmp_path / "pkg" / "gated.py").read_text() == GATED_FIXED


@pytest.mark.parametrize("args, message", [
    (["--select", "KVP7"], "unknown code KVP7"),
    (["--ignore", "E501"], "unknown code E501"),
    (["--extend-select", "KVP0041"], "unknown code KVP0041"),
    (["--kvp-pool-attr", "not an attr"], "kvp-pool-attr"),
    (["--config", "missing.cfg"], "missing.cfg"),
])
def test_bad_values_exit_2_with_one_line(tmp_path, args, message):
    write(tmp_path, {"gated.py": GATED})
    done = poolguard("lint", *args, cwd=tmp_path, expect=2)
    assert done.stdout == ""
    assert done.stderr.startswith("poolguard: error: ") and message in done.stderr
    assert len(done.stderr.splitlines()) == 1
    if "unknown code" in message:
        assert "KVP001" in done.stderr  # lists the known codes


@pytest.mark.parametrize("args", [[], ["lint", "--jobs", "0"], ["lint", "--jobs", "x"],
                                  ["lint", "--format", "xml"], ["lint", "--fix", "--diff"],
                                  ["frobnicate"]])
def test_usage_errors_exit_2(tmp_path, args):
    done = poolguard(*args, cwd=tmp_path, expect=2)
    assert "usage:" in done.stderr


def test_missing_path_exits_2_but_lints_the_rest(tmp_path):
    write(tmp_path, {"gated.py": GATED})
    done = poolguard("lint", "--isolated", "nope.py", "gated.py", cwd=tmp_path, expect=2)
    assert "nope.py" in done.stderr and "KVP003" in done.stdout


def test_unreadable_file_exits_2(tmp_path):
    write(tmp_path, {"gated.py": GATED})
    target = tmp_path / "secret.py"
    if os.geteuid() == 0:  # root reads anything: a symlink loop fails the same open() call
        target.symlink_to(target)
    else:
        target.write_text(GATED)
        target.chmod(0)
    done = poolguard("lint", "--isolated", "secret.py", "gated.py", cwd=tmp_path, expect=2)
    assert done.stderr.startswith("poolguard: error: secret.py")
    assert "gated.py:6:12: KVP003" in done.stdout


def test_fifo_is_refused_not_read_forever(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    write(tmp_path, {"gated.py": GATED})
    explicit = poolguard("lint", "--isolated", "pipe.py", cwd=tmp_path, expect=2)
    assert "pipe.py: not a regular file" in explicit.stderr
    walked = poolguard("lint", "--isolated", cwd=tmp_path, expect=2)  # reported, not dropped
    assert "pipe.py: not a regular file, not checked" in walked.stderr
    assert "gated.py:6:12: KVP003" in walked.stdout


# ---------------------------------------------------------------- selection and config

@pytest.mark.parametrize("args, expected", [
    ([], {"KVP001", "KVP003"}),
    (["--select", "KVP"], {"KVP001", "KVP003", "KVP004"}),
    (["--select", "KVP00", "--ignore", "KVP001"], {"KVP003", "KVP004"}),
    (["--select", "KVP003"], {"KVP003"}),
    (["--ignore", "KVP"], set()),
    (["--ignore", "KVP00", "--select", "KVP003"], {"KVP003"}),  # longer prefix wins
    (["--extend-select", "KVP004"], {"KVP001", "KVP003", "KVP004"}),
])
def test_select_and_ignore_use_flake8_prefix_semantics(tmp_path, args, expected):
    write(tmp_path, {"gated.py": GATED, "stale.py": STALE, "mirror.py": MIRROR})
    done = poolguard("lint", "--isolated", "--format", "json", *args, cwd=tmp_path)
    assert {code for _, _, code in codes_of(done.stdout)} == expected
    assert done.returncode == (1 if expected else 0)


@pytest.mark.parametrize("name, section", [
    ("setup.cfg", "flake8"), ("tox.ini", "flake8"), (".flake8", "flake8"),
    ("setup.cfg", "poolguard"),
])
def test_config_file_enables_opt_in_code(tmp_path, name, section):
    write(tmp_path, {"mirror.py": MIRROR, name: f"[{section}]\nextend-select = KVP004\n"})
    done = poolguard("lint", "--format", "json", cwd=tmp_path, expect=1)
    assert codes_of(done.stdout) == [("mirror.py", 4, "KVP004")]
    isolated = poolguard("lint", "--isolated", cwd=tmp_path, expect=0)
    assert isolated.stdout == ""


def test_poolguard_section_overrides_flake8_and_first_file_wins(tmp_path):
    write(tmp_path, {
        "gated.py": GATED, "stale.py": STALE,
        "setup.cfg": "[flake8]\nselect = E,W,F,KVP\nignore = KVP001\n"
                     "[poolguard]\nignore = KVP003\n",
        "tox.ini": "[flake8]\nignore = KVP\n",  # not read: setup.cfg comes first
    })
    done = poolguard("lint", "--format", "json", cwd=tmp_path, expect=1)
    # select = KVP takes the opt-in KVP004 too (GATED's flag mirrors the pool)
    assert {code for _, _, code in codes_of(done.stdout)} == {"KVP001", "KVP004"}


def test_config_options_reach_the_rules(tmp_path):
    custom = GATED.replace("use_sliding_window_kv_pool", "is_hybrid_swa").replace(
        "_swa_kv_pool", "swa_pool")
    write(tmp_path, {"custom.py": custom, "tox.ini": dedent("""\
        [flake8]
        kvp-swa-flags = is_hybrid_swa
        kvp_pool_attr = swa_pool
    """)})
    done = poolguard("lint", "--format", "json", cwd=tmp_path, expect=1)
    assert codes_of(done.stdout) == [("custom.py", 6, "KVP003")]
    poolguard("lint", "--fix", cwd=tmp_path, expect=0)
    assert "if self.swa_pool is not None:" in (tmp_path / "custom.py").read_text()


def test_per_file_ignores_and_exclude_from_config(tmp_path):
    write(tmp_path, {
        "gated.py": GATED, "legacy/stale.py": STALE, "vendored/stale.py": STALE,
        ".flake8": "[flake8]\nper-file-ignores =\n    legacy/*: KVP001, E501\n"
                   "exclude = vendored\n",
    })
    done = poolguard("lint", "--format", "json", cwd=tmp_path, expect=1)
    assert codes_of(done.stdout) == [("gated.py", 6, "KVP003")]
    # named on the command line, as pre-commit passes files: still excluded
    poolguard("lint", "vendored/stale.py", "legacy/stale.py", cwd=tmp_path, expect=0)


@pytest.mark.parametrize("config", [
    "[flake8]\nselect = KVP7\n", "[poolguard]\nkvp-pool-attr = 1x\n", "[flake8\nbroken",
])
def test_bad_config_exits_2(tmp_path, config):
    write(tmp_path, {"gated.py": GATED, "setup.cfg": config})
    if config.startswith("[flake8\n"):  # unparsable: flake8 skips it; its select would be lost
        done = poolguard("lint", "--config", "setup.cfg", cwd=tmp_path, expect=2)
        searched = poolguard("lint", cwd=tmp_path, expect=2).stderr
        assert f"cannot parse config file {tmp_path / 'setup.cfg'}" in searched, searched
    else:
        done = poolguard("lint", cwd=tmp_path, expect=2)
    assert done.stderr.startswith("poolguard: error: ") and len(done.stderr.splitlines()) == 1


# ---------------------------------------------------------------- noqa, --fix, --diff

def test_noqa_is_honoured_and_suppressed_lines_are_never_rewritten(tmp_path):
    source = GATED.replace(
        "    def forward_decode(self, layer):\n",
        "    def forward_extend(self, layer):\n"
        "        while self.use_sliding_window_kv_pool:  # noqa: KVP003\n"
        "            break\n\n"
        "    def forward_decode(self, layer):\n",
    )
    write(tmp_path, {"gated.py": source})
    done = poolguard("lint", "--isolated", "--format", "json", cwd=tmp_path, expect=1)
    assert [line for _, line, _ in codes_of(done.stdout)] == [10]  # the suppressed 6 is quiet
    poolguard("lint", "--isolated", "--fix", cwd=tmp_path, expect=0)
    fixed = (tmp_path / "gated.py").read_text()
    assert "while self.use_sliding_window_kv_pool:  # noqa: KVP003" in fixed
    assert "if self._swa_kv_pool is not None:" in fixed


def test_fix_rewrites_reparses_and_is_idempotent(tmp_path):
    write(tmp_path, {"gated.py": GATED, "stale.py": STALE, "clean.py": CLEAN})
    stale_before = (tmp_path / "stale.py").read_bytes()
    first = poolguard("lint", "--isolated", "--fix", "--format", "json", cwd=tmp_path, expect=1)
    assert [code for _, _, code in codes_of(first.stdout)] == ["KVP001"]  # not autofixable
    assert (tmp_path / "gated.py").read_text() == GATED_FIXED
    assert (tmp_path / "stale.py").read_bytes() == stale_before
    ast.parse(GATED_FIXED)
    snapshot = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    second = poolguard("lint", "--isolated", "--fix", "--format", "json", cwd=tmp_path, expect=1)
    assert second.stdout == first.stdout
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == snapshot


def test_fix_keeps_encoding_newlines_and_mode(tmp_path):
    source = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + GATED).replace("\n", "\r\n")
    path = tmp_path / "crlf.py"
    path.write_bytes(source.encode("latin-1"))
    path.chmod(0o754)
    poolguard("lint", "--isolated", "--fix", cwd=tmp_path, expect=0)
    expected = source.replace("if self.use_sliding_window_kv_pool",
                              "if self._swa_kv_pool is not None")
    assert path.read_bytes() == expected.encode("latin-1")
    assert path.stat().st_mode & 0o777 == 0o754
    assert not [p for p in tmp_path.iterdir() if p.name != "crlf.py"]  # no temp file left


def test_diff_prints_the_fix_and_writes_nothing(tmp_path):
    write(tmp_path, {"gated.py": GATED})
    done = poolguard("lint", "--isolated", "--diff", cwd=tmp_path, expect=1)
    assert (tmp_path / "gated.py").read_text() == GATED
    assert done.stdout.startswith("--- a/gated.py\n+++ b/gated.py\n@@ ")
    assert "-        if self.use_sliding_window_kv_pool:\n" in done.stdout
    assert "+        if self._swa_kv_pool is not None:\n" in done.stdout
    poolguard("lint", "--isolated", "--fix", cwd=tmp_path, expect=0)
    after = poolguard("lint", "--isolated", "--diff", cwd=tmp_path, expect=0)
    assert after.stdout == ""


# ---------------------------------------------------------------- jobs and cache

def _many_files(root: Path) -> Path:
    broken = "class ABackend(AttnBackend):\n    def f(self:\n        swa = 1\n"
    sources = (GATED, STALE, CLEAN, MIRROR, "x = 1\n", broken)
    return write(root, {f"d{i % 7}/m{i}.py": sources[i % len(sources)] for i in range(90)})


def test_jobs_2_gives_the_same_result_as_jobs_1(tmp_path):
    _many_files(tmp_path)
    one = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "--jobs", "1",
                    cwd=tmp_path, expect=1)
    two = poolguard("lint", "--isolated", "--no-cache", "--format", "json", "--jobs", "2",
                    cwd=tmp_path, expect=1)
    assert two.stdout == one.stdout and len(json.loads(one.stdout)) == 45


def test_warm_cache_matches_cold_and_sees_content_changes(tmp_path):
    cache = tmp_path / "cache"
    tree = _many_files(tmp_path / "tree")
    target = tree / "d0" / "m0.py"
    # a write the run cannot have seen settle yet (mtime not 2 s before the run started),
    # whatever the machine's speed: its stat must not be trusted, only its content digest
    future = time.time_ns() + 60 * 10**9
    os.utime(target, ns=(future, future))
    args = ("lint", "--isolated", "--format", "json")
    cold = poolguard(*args, cwd=tree, cache_dir=cache, expect=1)
    (cache_file,) = cache.glob("lint-*.json")
    assert poolguard(*args, cwd=tree, cache_dir=cache, expect=1).stdout == cold.stdout
    assert poolguard(*args, "--no-cache", cwd=tree, cache_dir=cache).stdout == cold.stdout

    # same size, same mtime, new content: the fresh entry is not trusted by stat alone
    assert "d0/m0.py" in cold.stdout
    stat = target.stat()
    target.write_text(("x = 1\n#" + "-" * stat.st_size)[:stat.st_size - 1] + "\n")
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert target.stat().st_size == stat.st_size
    warm = json.loads(poolguard(*args, cwd=tree, cache_dir=cache, expect=1).stdout)
    assert not [row for row in warm if row["path"] == "d0/m0.py"]
    assert warm == json.loads(poolguard(*args, "--no-cache", cwd=tree, expect=1).stdout)


def test_cache_keys_on_content_and_configuration(tmp_path):
    cache = tmp_path / "cache"
    tree = write(tmp_path / "tree", {"gated.py": GATED, "mirror.py": MIRROR, "again.py": GATED})
    poolguard("lint", "--isolated", cwd=tree, cache_dir=cache, expect=1)
    (cache_file,) = cache.glob("lint-*.json")
    entries = json.loads(cache_file.read_text())["files"]
    assert len(entries) == 2  # keyed by content: the two equal files share one entry
    assert not any("gated" in key or "/" in key for key in entries)
    # another code set is another cache file, never a stale answer
    done = poolguard("lint", "--isolated", "--select", "KVP004", "--format", "json",
                     cwd=tree, cache_dir=cache, expect=1)
    assert codes_of(done.stdout) == [("again.py", 4, "KVP004"), ("gated.py", 4, "KVP004"),
                                     ("mirror.py", 4, "KVP004")]
    assert len(list(cache.glob("lint-*.json"))) == 2


@pytest.mark.parametrize("garbage", ["{not json", '{"format": 2, "files": {"x": [1]}}', "[]"])
def test_a_corrupt_cache_is_ignored(tmp_path, garbage):
    cache = tmp_path / "cache"
    tree = write(tmp_path / "tree", {"gated.py": GATED})
    cold = poolguard("lint", "--isolated", cwd=tree, cache_dir=cache, expect=1)
    (cache_file,) = cache.glob("lint-*.json")
    entries = json.loads(cache_file.read_text())["files"]
    cache_file.write_text(garbage.replace('"x"', json.dumps(next(iter(entries)))))
    warm = poolguard("lint", "--isolated", cwd=tree, cache_dir=cache, expect=1)
    assert warm.stdout == cold.stdout


def test_fix_with_a_warm_cache(tmp_path):
    cache = tmp_path / "cache"
    tree = write(tmp_path / "tree", {"gated.py": GATED, "stale.py": STALE})
    poolguard("lint", "--isolated", cwd=tree, cache_dir=cache, expect=1)
    poolguard("lint", "--isolated", "--fix", cwd=tree, cache_dir=cache, expect=1)
    assert (tree / "gated.py").read_text() == GATED_FIXED
    done = poolguard("lint", "--isolated", "--format", "json", cwd=tree, cache_dir=cache)
    assert codes_of(done.stdout) == [("stale.py", 3, "KVP001")]


# ---------------------------------------------------------------- explain, script, demo

def test_explain_prints_documentation_and_examples(tmp_path):
    done = poolguard("explain", "kvp003", cwd=tmp_path, expect=0)
    assert done.stdout.startswith("KVP003 (")
    assert "Invalid example 1" in done.stdout and "Valid example 1" in done.stdout
    assert "after `poolguard lint --fix`" in done.stdout
    bad = poolguard("explain", "KVP123", cwd=tmp_path, expect=2)
    assert "unknown code" in bad.stderr and "KVP001" in bad.stderr


def test_installed_console_script(tmp_path):
    script = Path(sys.executable).with_name("poolguard")
    write(tmp_path, {"gated.py": GATED})
    done = subprocess.run([str(script), "lint", "--isolated", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "gated.py:6:12: KVP003 [*]" in done.stdout


def test_demo_runs_the_main_job(tmp_path):
    done = poolguard("demo", cwd=tmp_path, expect=0)
    lint, fix, replay = re.split(r"\n== \d\. ", done.stdout)[1:]
    assert lint.startswith("poolguard lint trtllm_backend_prefix.py")
    assert {"KVP001", "KVP002", "KVP003"} <= set(re.findall(r": (KVP\d{3}) ", lint))
    assert "+++ b/trtllm_backend_prefix.py" in fix
    assert "+    def use_sliding_window_kv_pool(self):" in fix  # the flag becomes a pool view
    assert "Left for a human" in fix and "KVP001" in fix.split("Left for a human")[1]
    assert replay.startswith("runtime guard")
    if importlib.util.find_spec("runtime_guard.demo"):  # the replay ships with the guard
        assert "SWAPoolMismatchError" in replay


def test_cache_writers_running_at_once_keep_each_others_entries(tmp_path, monkeypatch):
    from lint_rules.cache import ResultCache

    monkeypatch.setenv("POOLGUARD_CACHE_DIR", str(tmp_path))
    first, second = (ResultCache.for_run(DEFAULT_CODES, None, ()) for _ in range(2))
    first.store("d-a:KVP001", [])
    second.store("d-b:KVP001", [[1, 0, "KVP001", "m", False, []]])
    first.save()
    second.save()  # pre-commit's parallel batches: the later writer merges, not overwrites
    merged = ResultCache.for_run(DEFAULT_CODES, None, ())
    assert merged.findings_of("d-a:KVP001") == []
    assert merged.findings_of("d-b:KVP001") == [[1, 0, "KVP001", "m", False, []]]
